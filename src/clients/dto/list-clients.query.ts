import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, TransformFnParams } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import {
  CursorField,
  digitsToNumber,
  LimitField,
  LinkIdField,
  MAX_CURSOR_LENGTH,
} from '../../query/query-fields';
import { Position } from '../../database/list-order';
import { SignedCursor } from '../../query/signed-cursor';

export const FILTERABLE_STATUSES = ['new', 'connected'] as const;
export const MAX_PAGE = 2147483647;

// Only the exact strings map to booleans; anything else stays a string and fails @IsBoolean.
// (Implicit conversion would turn 'false' into true.)
const exactBoolean = ({ value }: TransformFnParams): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

const pageRule = { message: `must be an integer from 1 to ${MAX_PAGE}` };

// docs/api.md, Endpoints: a cursor continues a walk, a page number starts one; both at once is a 400.
const NotCombinedWith = (other: 'page' | 'cursor') =>
  ValidateBy({
    name: 'notCombinedWith',
    validator: {
      validate: (_value, args) => (args?.object as ListClientsQuery)[other] === undefined,
      defaultMessage: () => `cannot be combined with ${other}`,
    },
  });

/** The filters a List Clients cursor is bound to, besides this endpoint. */
const CURSOR_FILTERS = ['linkId', 'isDeleted', 'status'] as const;

/** What a List Clients cursor is bound to: this endpoint and its filters. */
export const listClientsScope = (query: ListClientsQuery) =>
  `clients\0${JSON.stringify(CURSOR_FILTERS.map((name) => query[name]))}`;

/** docs/api.md, Endpoints, `GET /api/data/clients`: its parameters in executable form. */
export class ListClientsQuery {
  @ApiPropertyOptional({
    description: '1-based page number (decimal digits only)',
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
  })
  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt(pageRule)
  @Min(1, pageRule)
  @Max(MAX_PAGE, pageRule)
  @NotCombinedWith('cursor')
  page?: number; // Left unset when absent, so a page given with a cursor can be told apart.

  @LimitField('Items per page (decimal digits only)')
  limit = 100;

  @LinkIdField('Exact match on the link id; an unknown link gives an empty list')
  linkId?: string;

  @ApiPropertyOptional({ description: 'Exact match on the soft-delete flag', type: Boolean })
  @IsOptional()
  @Transform(exactBoolean)
  @IsBoolean({ message: 'must be true or false' })
  isDeleted?: boolean;

  @ApiPropertyOptional({ description: 'Exact match on the status', enum: FILTERABLE_STATUSES })
  @IsOptional()
  @IsIn(FILTERABLE_STATUSES, { message: `must be one of: ${FILTERABLE_STATUSES.join(', ')}` })
  status?: (typeof FILTERABLE_STATUSES)[number];

  @ApiPropertyOptional({
    description:
      'Continue after the last item of an earlier response: its meta.nextCursor, with the same ' +
      'filters (any limit), such as `WyIyMDI2LTAyLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMDAwMDIiLCJhYmMiXQ.8YV0r3o1o0lWl2w0Y2r0xA`. ' +
      'Cannot be combined with page (in "Try it out", clear page first).',
    minLength: 1,
    maxLength: MAX_CURSOR_LENGTH,
    // No `example`: the docs page would send it in every "Try it out", and a made-up cursor is a 400.
  })
  @CursorField()
  @NotCombinedWith('page')
  @SignedCursor<ListClientsQuery>(listClientsScope, 'after', CURSOR_FILTERS)
  cursor?: string;

  /** The position the cursor holds, verified by the validation pipe; not a query parameter. */
  after?: Position;
}
