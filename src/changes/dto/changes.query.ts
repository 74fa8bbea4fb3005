import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import {
  cursorRule,
  digitsToNumber,
  limitRule,
  linkIdRule,
  MAX_LIMIT,
} from '../../clients/dto/list-clients.query';
import { CursorPosition, SignedCursor } from '../../http/signed-cursor';

const CURSOR_DOC = {
  description:
    'Continue after the position of an earlier response: its meta.nextCursor, from the same ' +
    'feed with the same filter. Omitted, the feed starts at the beginning (a full copy).',
  maxLength: 2048,
};

/** What a feed cursor is bound to: its feed, and on the client feed its linkId filter. */
export const linkChangesScope = () => 'changes/links';
export const clientChangesScope = ({ linkId }: { linkId?: string }) =>
  `changes/clients\0${JSON.stringify([linkId])}`;

/** The Link changes parameters (docs/api.md "Change feeds"). */
export class LinkChangesQuery {
  @ApiPropertyOptional({
    description: 'Rows per page (decimal digits only)',
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    default: 100,
  })
  @Transform(digitsToNumber)
  @IsInt(limitRule)
  @Min(1, limitRule)
  @Max(MAX_LIMIT, limitRule)
  limit = 100;

  @ApiPropertyOptional(CURSOR_DOC)
  @IsOptional()
  @IsString(cursorRule)
  @Length(1, 2048, cursorRule)
  @SignedCursor<LinkChangesQuery>(linkChangesScope, 'after')
  cursor?: string;

  /** The position the cursor holds, verified by the validation pipe; not a query parameter. */
  after?: CursorPosition;
}

/** The Client changes parameters: those of the link feed, and `linkId`. */
export class ClientChangesQuery {
  @ApiPropertyOptional({
    description: 'Rows per page (decimal digits only)',
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    default: 100,
  })
  @Transform(digitsToNumber)
  @IsInt(limitRule)
  @Min(1, limitRule)
  @Max(MAX_LIMIT, limitRule)
  limit = 100;

  @ApiPropertyOptional({
    description: 'Only the clients of this link (exact match)',
    minLength: 1,
    maxLength: 255,
  })
  @IsOptional()
  @IsString(linkIdRule)
  @Length(1, 255, linkIdRule)
  linkId?: string;

  @ApiPropertyOptional(CURSOR_DOC)
  @IsOptional()
  @IsString(cursorRule)
  @Length(1, 2048, cursorRule)
  @SignedCursor<ClientChangesQuery>(clientChangesScope, 'after')
  cursor?: string;

  after?: CursorPosition;
}
