import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import {
  BooleanField,
  CursorField,
  EnumField,
  IdField,
  IntegerField,
  LimitField,
  DOCUMENTED_CURSOR_LENGTH,
} from '../../query/fields';
import { Filter, filterScope, filtersOf, givenFilters } from '../../query/filters';
import { exampleCursor } from '../../query/example-cursor';
import { Position } from '../../database/list-order';
import { SignedCursor } from '../../query/signed-cursor';
import { Client } from '../client.entity';
import { FILTERABLE_STATUSES, FilterableStatus } from '../client-statuses';

export const MAX_PAGE = 2147483647;

// docs/api.md, Endpoints: a cursor continues a walk, a page number starts one; both at once is a 400.
const NotCombinedWith = (other: 'page' | 'cursor') =>
  ValidateBy({
    name: 'notCombinedWith',
    validator: {
      validate: (_value, args) => (args?.object as ListClientsQuery)[other] === undefined,
      defaultMessage: () => `cannot be combined with ${other}`,
    },
  });

/** What a List Clients cursor is bound to: this endpoint and the filters given. */
export const listClientsScope = (query: object) =>
  filterScope('clients', filtersOf(ListClientsQuery), query);

// The scope of cursors issued before scopes named their filters: these three, in this order,
// each null when absent. Such a cursor still continues a walk that gives no other filter.
const FIRST_SCOPE_FILTERS: readonly string[] = ['linkId', 'isDeleted', 'status'];
export const firstFormatScope = (query: object): string | undefined => {
  const given = givenFilters(ListClientsQuery, query).map(({ name }) => name);
  if (!given.every((name) => FIRST_SCOPE_FILTERS.includes(name))) return undefined;
  const values = FIRST_SCOPE_FILTERS.map((name) => (query as Record<string, unknown>)[name]);
  return `clients\0${JSON.stringify(values)}`;
};

// The position the examples of the OpenAPI document continue after.
const FIRST_ROW = { timestamp: '2026-02-01T00:00:00.000000Z', id: 'client-00002' };

/** docs/api.md, Endpoints, `GET /api/data/clients`: its parameters in executable form. */
export class ListClientsQuery {
  // No `default` in the document: a generated client would send it beside a cursor (a 400).
  @IntegerField('1-based page number (decimal digits only); absent, the first page', {
    minimum: 1,
    maximum: MAX_PAGE,
  })
  @NotCombinedWith('cursor')
  page?: number; // Left unset when absent, so a page given with a cursor can be told apart.

  @LimitField('Items per page (decimal digits only)')
  limit = 100;

  @Filter(
    Client,
    'linkId',
    '=',
    IdField('Exact match on the link id; an unknown link gives an empty list'),
  )
  linkId?: string;

  @Filter(Client, 'isDeleted', '=', BooleanField('Exact match on the soft-delete flag'))
  isDeleted?: boolean;

  @Filter(Client, 'status', '=', EnumField('Exact match on the status', FILTERABLE_STATUSES))
  status?: FilterableStatus;

  @ApiPropertyOptional({
    description:
      'Continue after the last item of an earlier response: its meta.nextCursor, with the same ' +
      `filters (any limit), such as \`${exampleCursor(FIRST_ROW, filterScope('clients', [], {}))}\`. ` +
      'Cannot be combined with page (in "Try it out", clear page first).',
    minLength: 1,
    maxLength: DOCUMENTED_CURSOR_LENGTH,
    // No `example`: the docs page would send it in every "Try it out", and a made-up cursor is a 400.
  })
  @CursorField()
  @NotCombinedWith('page')
  @SignedCursor<ListClientsQuery>(listClientsScope, 'after', [], firstFormatScope)
  cursor?: string;

  /** The position the cursor holds, verified by the validation pipe; not a query parameter. */
  after?: Position;
}
