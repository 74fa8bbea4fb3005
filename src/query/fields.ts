import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, TransformFnParams } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateBy,
} from 'class-validator';
import { MAX_REQUEST_HEAD_BYTES } from '../config/http.env';
import { isRfc3339Instant } from './instant';

// One decorator per kind of query parameter: its checks, its 400 reason and its OpenAPI text
// (docs/api.md, Endpoints). A query DTO composes its fields from these alone.

export const MAX_LIMIT = 1000;
// A cursor carries its row's id, JSON-escaped and in base64: one after a 255-character id of
// control characters is ~2,100 characters. Whatever id a row has, its cursor is accepted as
// long as the request head holds it.
export const MAX_CURSOR_LENGTH = MAX_REQUEST_HEAD_BYTES;
export const MAX_ID_LENGTH = 255;

// What the OpenAPI document promises: any value up to these lengths is answered, not refused
// for the request head's size, when sent with every other parameter at its longest and up to
// HEADERS_BUDGET bytes of other headers (a character percent-encoded is at most 12 bytes).
// Longer values work too, as long as the head holds them. Tested.
export const HEADERS_BUDGET = 2048;
export const DOCUMENTED_ID_LENGTH = 1024;
export const DOCUMENTED_CURSOR_LENGTH = 10_240;

// Decimal digits only. Number() alone would accept '1e2', '0x10', ' 2' and '+2'.
const digitsToNumber = ({ value }: TransformFnParams): unknown =>
  typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;

// Only the exact strings map to booleans; anything else stays a string and fails @IsBoolean.
// (Implicit conversion would turn 'false' into true.)
const exactBoolean = ({ value }: TransformFnParams): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

export const integerRule = (minimum: number, maximum: number) => ({
  message: `must be an integer from ${minimum} to ${maximum}`,
});
export const limitRule = integerRule(1, MAX_LIMIT);
const idRule = { message: `must be a non-empty string of at most ${MAX_ID_LENGTH} characters` };
const cursorRule = { message: 'must be a nextCursor value from an earlier response' };
const instantRule = { message: 'must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z' };

interface IntegerRange {
  minimum: number;
  maximum: number;
  /** The value when absent, set by the field's initialiser; stated in the OpenAPI document. */
  default?: number;
}

/** An integer in decimal digits only, within `range`. */
export const IntegerField = (description: string, { minimum, maximum, ...rest }: IntegerRange) => {
  const rule = integerRule(minimum, maximum);
  return applyDecorators(
    ApiPropertyOptional({ description, type: 'integer', minimum, maximum, ...rest }),
    IsOptional(),
    Transform(digitsToNumber),
    IsInt(rule),
    Min(minimum, rule),
    Max(maximum, rule),
  );
};

/** `limit`: rows per page, 1 to MAX_LIMIT, 100 by default (the field's initialiser). */
export const LimitField = (description: string) =>
  IntegerField(description, { minimum: 1, maximum: MAX_LIMIT, default: 100 });

/** `true` or `false`, exactly. */
export const BooleanField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ description, type: Boolean }),
    IsOptional(),
    Transform(exactBoolean),
    IsBoolean({ message: 'must be true or false' }),
  );

/** One of `values`, exactly. */
export const EnumField = (description: string, values: readonly string[]) =>
  applyDecorators(
    ApiPropertyOptional({ description, enum: values }),
    IsOptional(),
    IsIn(values, { message: `must be one of: ${values.join(', ')}` }),
  );

/** A row's id, as an exact match: any text of 1 to MAX_ID_LENGTH characters. */
export const IdField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ description, minLength: 1, maxLength: MAX_ID_LENGTH }),
    IsOptional(),
    IsString(idRule),
    Length(1, MAX_ID_LENGTH, idRule),
  );

/** An RFC 3339 instant PostgreSQL can hold (instant.ts); compared as a timestamptz. */
export const InstantField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ description, type: 'string', format: 'date-time' }),
    IsOptional(),
    ValidateBy({
      name: 'isRfc3339Instant',
      validator: {
        validate: (value) => typeof value === 'string' && isRfc3339Instant(value),
        defaultMessage: () => instantRule.message,
      },
    }),
  );

/** `cursor`: the plain checks; the signature is verified by the validation pipe. */
export const CursorField = () =>
  applyDecorators(IsOptional(), IsString(cursorRule), Length(1, MAX_CURSOR_LENGTH, cursorRule));
