import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  CursorField,
  DOCUMENTED_CURSOR_LENGTH,
  IdField,
  IntegerField,
  LimitField,
} from '../../query/fields';
import { Position } from '../../database/list-order';
import { Filter, filterScope, filtersOf } from '../../query/filters';
import { SignedCursor } from '../../query/signed-cursor';
import { Client } from '../../clients/client.entity';

const CURSOR_DOC = {
  description:
    'Continue after the position of an earlier response: its meta.nextCursor, from the same ' +
    'feed with the same filter. Omitted, the feed starts at the beginning (a full copy).',
  minLength: 1,
  maxLength: DOCUMENTED_CURSOR_LENGTH,
};

// Under the idle timeouts of common proxies and load balancers (60 s) with room to spare.
export const MAX_WAIT_SECONDS = 25;

/** `wait`: long polling, seconds to hold a caught-up poll (docs/api.md "Change feeds"). */
const WaitField = () =>
  IntegerField(
    'Long polling: when no change is ready, hold the request up to this many seconds ' +
      '(decimal digits only) and answer as soon as one is; at the deadline, the empty page',
    { minimum: 1, maximum: MAX_WAIT_SECONDS },
  );

/** What a feed cursor is bound to: its feed and the filters given, by name (as List Clients'). */
export const linkChangesScope = (query: object = {}) =>
  filterScope('changes/links', filtersOf(LinkChangesQuery), query);
export const clientChangesScope = (query: object) =>
  filterScope('changes/clients', filtersOf(ClientChangesQuery), query);

// The scopes of feed cursors issued before scopes named their filters: the feed, and on the
// client feed its linkId (null when absent). Such a cursor still continues its walk.
const firstLinkChangesScope = () => 'changes/links';
const firstClientChangesScope = ({ linkId }: ClientChangesQuery) =>
  `changes/clients\0${JSON.stringify([linkId ?? null])}`;

/** The Link changes parameters (docs/api.md "Change feeds"). */
export class LinkChangesQuery {
  @LimitField('Rows per page (decimal digits only)')
  limit = 100;

  @ApiPropertyOptional(CURSOR_DOC)
  @CursorField()
  @SignedCursor<LinkChangesQuery>(linkChangesScope, 'after', [], firstLinkChangesScope)
  cursor?: string;

  @WaitField()
  wait?: number;

  /** The position the cursor holds, verified by the validation pipe; not a query parameter. */
  after?: Position;
}

/** The Client changes parameters: those of the link feed, and `linkId`. */
export class ClientChangesQuery {
  @LimitField('Rows per page (decimal digits only)')
  limit = 100;

  @Filter(Client, 'linkId', '=', IdField('Only the clients of this link (exact match)'))
  linkId?: string;

  @ApiPropertyOptional(CURSOR_DOC)
  @CursorField()
  @SignedCursor<ClientChangesQuery>(clientChangesScope, 'after', [], firstClientChangesScope)
  cursor?: string;

  @WaitField()
  wait?: number;

  after?: Position;
}
