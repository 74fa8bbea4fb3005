import { applyDecorators } from '@nestjs/common';
import { Expose, Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';

// One decorator per repeated stack; each message names the variable ($property).

const parseInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

/** Comma-separated values, trimmed; blanks are ignored (so a key list can be rotated). */
export const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const parseList = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? splitList(value) : value;

/** A variable read as a comma-separated list. */
export const CommaList = () => applyDecorators(Expose(), Transform(parseList));

/** `true` or `false`, exactly. */
export const ExactBoolean = () =>
  applyDecorators(
    Expose(),
    Transform(({ value }: { value: unknown }) =>
      value === 'true' ? true : value === 'false' ? false : value,
    ),
    IsBoolean({ message: '$property must be true or false' }),
  );

/** A whole number of milliseconds, `min` or more. */
export const WholeMilliseconds = (min: number) => {
  const rule = { message: `$property must be a whole number of milliseconds, ${min} or more` };
  return applyDecorators(Expose(), Transform(parseInteger), IsInt(rule), Min(min, rule));
};

/** A whole number of requests, 1 or more. */
export const WholeRequests = () => {
  const rule = { message: '$property must be a whole number of requests, 1 or more' };
  return applyDecorators(Expose(), Transform(parseInteger), IsInt(rule), Min(1, rule));
};

/** An integer from `min` to `max`. */
export const IntegerFrom = (min: number, max: number) => {
  const rule = { message: `$property must be an integer from ${min} to ${max}` };
  return applyDecorators(
    Expose(),
    Transform(parseInteger),
    IsInt(rule),
    Min(min, rule),
    Max(max, rule),
  );
};
