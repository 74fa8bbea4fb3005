import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListClientsQuery } from '../../src/clients/dto/list-clients.query';
import { filtersOf } from '../../src/query/filters';

// The List Clients parameters as the tests know them: read from the OpenAPI document and the
// DTO's filter declarations, never listed by hand, so a filter added there is tried here too.

interface Parameter {
  name: string;
  schema: { type?: string; format?: string; enum?: string[] };
}

const document = JSON.parse(readFileSync(join(__dirname, '../../openapi.json'), 'utf8'));

export const LIST_CLIENTS_OPERATION: { parameters: Parameter[]; responses: object } =
  document.paths['/api/data/clients'].get;

/** Every List Clients query parameter, in the document's order. */
export const LIST_CLIENTS_PARAMETERS = LIST_CLIENTS_OPERATION.parameters;

/** The List Clients filters (@Filter): the parameter, the row field it compares, how. */
export const CLIENT_FILTERS = filtersOf(ListClientsQuery);

export type Filters = Record<string, string | boolean>;

/**
 * Values to try for each filter, by the kind its parameter declares: every value of an enum,
 * both booleans, the given instants for a date-time, the given ids for any other string.
 */
export function filterSamples(ids: string[], instants: string[]): Record<string, unknown[]> {
  const schemaOf = (name: string) =>
    LIST_CLIENTS_PARAMETERS.find((parameter) => parameter.name === name)?.schema ?? {};
  return Object.fromEntries(
    CLIENT_FILTERS.map(({ name }) => {
      const { type, format, enum: values } = schemaOf(name);
      if (values) return [name, values];
      if (type === 'boolean') return [name, [true, false]];
      if (format === 'date-time') return [name, instants];
      return [name, ids];
    }),
  );
}

/** Every combination of the samples, each filter also left out. */
export const filterCombinations = (samples: Record<string, unknown[]>): Filters[] =>
  Object.entries(samples).reduce<Filters[]>(
    (sets, [name, values]) =>
      sets.flatMap((set) => [set, ...values.map((value) => ({ ...set, [name]: value as string }))]),
    [{}],
  );

// Compared as the column would compare them: instants by time, anything else as it is.
const comparable = (value: unknown) =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value)) && /^\d{4}-/.test(value)
    ? Date.parse(value)
    : value;

/** Whether a row, as the API renders it, passes `filters` as each filter declares. */
export function passesFilters(row: Record<string, unknown>, filters: Filters): boolean {
  return CLIENT_FILTERS.every(({ name, property, operator }) => {
    if (filters[name] === undefined) return true;
    const [actual, wanted] = [comparable(row[property]), comparable(filters[name])];
    const given = typeof actual === 'boolean' ? String(actual) : actual;
    const expected = typeof actual === 'boolean' ? String(wanted) : wanted;
    switch (operator) {
      case '=':
        return given === expected;
      case '<':
        return (given as number) < (expected as number);
      case '<=':
        return (given as number) <= (expected as number);
      case '>':
        return (given as number) > (expected as number);
      case '>=':
        return (given as number) >= (expected as number);
    }
  });
}
