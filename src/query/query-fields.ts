import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, TransformFnParams } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_REQUEST_HEAD_BYTES } from '../config/http.env';

// The query parameters every paged route shares (docs/api.md, Endpoints), one decorator each.

export const MAX_LIMIT = 1000;
// A cursor carries its row's id, JSON-escaped and in base64: one after a 255-character id of
// control characters is ~2,100 characters. Whatever id a row has, its cursor is accepted as
// long as the request head holds it.
export const MAX_CURSOR_LENGTH = MAX_REQUEST_HEAD_BYTES;

// Decimal digits only. Number() alone would accept '1e2', '0x10', ' 2' and '+2'.
export const digitsToNumber = ({ value }: TransformFnParams): unknown =>
  typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;

export const limitRule = { message: `must be an integer from 1 to ${MAX_LIMIT}` };
const linkIdRule = { message: 'must be a non-empty string of at most 255 characters' };
const cursorRule = { message: 'must be a nextCursor value from an earlier response' };

/** `limit`: rows per page, 1 to MAX_LIMIT, 100 by default (the field's initialiser). */
export const LimitField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      description,
      type: 'integer',
      minimum: 1,
      maximum: MAX_LIMIT,
      default: 100,
    }),
    Transform(digitsToNumber),
    IsInt(limitRule),
    Min(1, limitRule),
    Max(MAX_LIMIT, limitRule),
  );

/** `linkId`: an exact match on a link id. */
export const LinkIdField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ description, minLength: 1, maxLength: 255 }),
    IsOptional(),
    IsString(linkIdRule),
    Length(1, 255, linkIdRule),
  );

/** `cursor`: the plain checks; the signature is verified by the validation pipe. */
export const CursorField = () =>
  applyDecorators(IsOptional(), IsString(cursorRule), Length(1, MAX_CURSOR_LENGTH, cursorRule));
