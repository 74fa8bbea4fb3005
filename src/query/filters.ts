import 'reflect-metadata';

/** How a filter compares a row's column with its value. */
export type FilterOperator = '=' | '<' | '<=' | '>' | '>=';

/** A query parameter that selects rows: the row property it compares, and how. */
export interface FilterDeclaration {
  /** The query parameter. */
  name: string;
  /** The entity property whose column it compares. */
  property: string;
  operator: FilterOperator;
}

type EntityClass<T> = abstract new () => T;

const FILTERS = Symbol('filters');

/**
 * Declares a query DTO field as a filter, in one place: `field` (a decorator of fields.ts) is
 * its checks and OpenAPI text; rows pass when `entity[property] operator value`. The SQL
 * condition, the cursor scope and the count cache's key all come from this declaration.
 */
export function Filter<E>(
  entity: EntityClass<E>,
  property: keyof E & string,
  operator: FilterOperator,
  field: PropertyDecorator,
): PropertyDecorator {
  return (prototype, name) => {
    field(prototype, name);
    const declaration: FilterDeclaration = { name: String(name), property, operator };
    const declared = filtersOf(prototype.constructor);
    Reflect.defineMetadata(FILTERS, [...declared, declaration], prototype.constructor);
  };
}

/** A query DTO's filters, in declaration order. */
export const filtersOf = (dto: object): readonly FilterDeclaration[] =>
  (Reflect.getMetadata(FILTERS, dto) as FilterDeclaration[] | undefined) ?? [];

/** The filters a query gives, with their values (an absent filter is no filter). */
export const givenFilters = (dto: object, query: object) => given(filtersOf(dto), query);

const given = (filters: readonly FilterDeclaration[], query: object) =>
  filters
    .map((filter) => ({ ...filter, value: (query as Record<string, unknown>)[filter.name] }))
    .filter(({ value }) => value !== undefined);

/**
 * What a page of `endpoint` is bound to: the endpoint and the filters given, by name. A filter
 * added later changes no scope of a query without it, so a cursor survives that release.
 */
export const filterScope = (
  endpoint: string,
  filters: readonly FilterDeclaration[],
  query: object,
): string =>
  `${endpoint}\0${JSON.stringify(
    given(filters, query)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map(({ name, value }) => [name, value]),
  )}`;
