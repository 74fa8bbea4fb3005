import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Filter, filterScope, filtersOf, givenFilters } from './filters';
import { BooleanField, IdField, InstantField } from './fields';

class Row {
  ownerId!: string;
  isArchived!: boolean;
  createdAt!: Date;
}

class Query {
  @Filter(Row, 'ownerId', '=', IdField('owner'))
  ownerId?: string;

  @Filter(Row, 'isArchived', '=', BooleanField('archived'))
  isArchived?: boolean;

  limit = 10;
}

// The same query after a release that adds an optional filter.
class QueryWithALaterFilter extends Query {
  @Filter(Row, 'createdAt', '>', InstantField('created after'))
  createdAfter?: string;
}

describe('filters', () => {
  it('lists the declared filters in order, with the column property and operator', () => {
    expect(filtersOf(QueryWithALaterFilter)).toEqual([
      { name: 'ownerId', property: 'ownerId', operator: '=' },
      { name: 'isArchived', property: 'isArchived', operator: '=' },
      { name: 'createdAfter', property: 'createdAt', operator: '>' },
    ]);
    expect(filtersOf(Query)).toHaveLength(2);
  });

  it('gives only the filters a query sets, false included', () => {
    const query = { ownerId: undefined, isArchived: false, limit: 5 };
    expect(givenFilters(Query, query)).toEqual([
      { name: 'isArchived', property: 'isArchived', operator: '=', value: false },
    ]);
  });

  it('scopes a query by the filters it gives, whatever filters exist besides', () => {
    const query = { ownerId: 'a', limit: 5 };
    expect(filterScope('rows', filtersOf(QueryWithALaterFilter), query)).toBe(
      filterScope('rows', filtersOf(Query), query),
    );
    expect(
      filterScope('rows', filtersOf(QueryWithALaterFilter), { ...query, createdAfter: 'x' }),
    ).not.toBe(filterScope('rows', filtersOf(Query), query));
    expect(filterScope('rows', filtersOf(Query), {})).toBe('rows\0[]');
  });

  it('scopes by value and endpoint, never by the order filters are given or declared in', () => {
    const scope = filterScope('rows', filtersOf(Query), { ownerId: 'a', isArchived: true });
    expect(filterScope('rows', filtersOf(Query), { isArchived: true, ownerId: 'a' })).toBe(scope);
    expect(filterScope('rows', filtersOf(Query), { ownerId: 'a', isArchived: false })).not.toBe(
      scope,
    );
    expect(filterScope('other', filtersOf(Query), { ownerId: 'a', isArchived: true })).not.toBe(
      scope,
    );
  });

  it('validates a filter by its field: an instant PostgreSQL refuses is a 400 reason', () => {
    const reasons = (createdAfter: string) =>
      validateSync(plainToInstance(QueryWithALaterFilter, { createdAfter })).map(
        (error) => error.constraints,
      );
    expect(reasons('2026-02-28T00:00:00+15:00')).toEqual([]);
    expect(reasons('2026-02-30T00:00:00Z')).toEqual([
      { isRfc3339Instant: 'must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z' },
    ]);
  });
});
