import { columnOf, columnTypeOf } from '../database/entity-columns';
import { isStorableText } from '../database/storable-text';
import { filtersOf, givenFilters } from './filters';

type EntityClass<T> = abstract new () => T;

/** Collects bind parameters: every value reaches PostgreSQL as a parameter, never as SQL. */
export class SqlParams {
  readonly values: unknown[] = [];

  bind(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/**
 * A query DTO's @Filter fields as SQL conditions on `entity`'s table: each filter given, as its
 * declaration says — the column, the operator, the value as a parameter of the column's type.
 * Columns and types are read from the entity once, not per request.
 */
export class FilterSql<E> {
  private readonly columns: Map<string, { column: string; type: string }>;

  constructor(
    private readonly dto: abstract new () => object,
    entity: EntityClass<E>,
  ) {
    this.columns = new Map(
      filtersOf(dto).map(({ name, property }) => {
        const field = property as keyof E & string;
        return [name, { column: columnOf(entity, field), type: columnTypeOf(entity, field) }];
      }),
    );
  }

  /** The conditions of the filters `query` gives, its columns qualified by `alias` if any. */
  conditions(query: object, params: SqlParams, alias?: string): string[] {
    return givenFilters(this.dto, query).map(({ name, operator, value }) => {
      const { column, type } = this.columns.get(name)!;
      return `${alias ? `${alias}.` : ''}${column} ${operator} ${params.bind(value, type)}`;
    });
  }

  /** Text PostgreSQL cannot hold matches no row (isStorableText): such a filter selects none. */
  selectsNone(query: object): boolean {
    return givenFilters(this.dto, query).some(
      ({ value }) => typeof value === 'string' && !isStorableText(value),
    );
  }
}
