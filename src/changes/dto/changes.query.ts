import { ApiPropertyOptional } from '@nestjs/swagger';
import { CursorField, LimitField, IdField, DOCUMENTED_CURSOR_LENGTH } from '../../query/fields';
import { Position } from '../../database/list-order';
import { SignedCursor } from '../../query/signed-cursor';

const CURSOR_DOC = {
  description:
    'Continue after the position of an earlier response: its meta.nextCursor, from the same ' +
    'feed with the same filter. Omitted, the feed starts at the beginning (a full copy).',
  minLength: 1,
  maxLength: DOCUMENTED_CURSOR_LENGTH,
};

/** What a feed cursor is bound to: its feed, and on the client feed its linkId filter. */
export const linkChangesScope = () => 'changes/links';
export const clientChangesScope = ({ linkId }: { linkId?: string }) =>
  `changes/clients\0${JSON.stringify([linkId])}`;

/** The Link changes parameters (docs/api.md "Change feeds"). */
export class LinkChangesQuery {
  @LimitField('Rows per page (decimal digits only)')
  limit = 100;

  @ApiPropertyOptional(CURSOR_DOC)
  @CursorField()
  @SignedCursor<LinkChangesQuery>(linkChangesScope, 'after')
  cursor?: string;

  /** The position the cursor holds, verified by the validation pipe; not a query parameter. */
  after?: Position;
}

/** The Client changes parameters: those of the link feed, and `linkId`. */
export class ClientChangesQuery {
  @LimitField('Rows per page (decimal digits only)')
  limit = 100;

  @IdField('Only the clients of this link (exact match)')
  linkId?: string;

  @ApiPropertyOptional(CURSOR_DOC)
  @CursorField()
  @SignedCursor<ClientChangesQuery>(clientChangesScope, 'after', ['linkId'])
  cursor?: string;

  after?: Position;
}
