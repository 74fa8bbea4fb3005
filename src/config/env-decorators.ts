import { applyDecorators } from '@nestjs/common';
import { Expose, Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min, ValidateBy } from 'class-validator';

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

// The longest delay a Node timer takes (about 24.8 days): a longer one fires after 1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number of milliseconds from `min` to the longest a timer can wait. */
export const WholeMilliseconds = (min: number) => {
  const rule = {
    message: `$property must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}`,
  };
  return applyDecorators(
    Expose(),
    Transform(parseInteger),
    IsInt(rule),
    Min(min, rule),
    Max(MAX_TIMER_MS, rule),
  );
};

function isDecodable(component: string): boolean {
  try {
    decodeURIComponent(component);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `scheme://` URL of one of `protocols` (`redis:`), whose user and password decode: the
 * drivers parse it with the WHATWG parser and decode both, and their errors quote the whole URL,
 * password included. Checked here, the message names the variable and nothing of its value.
 * `noHost` also takes `user@/db?host=/run/postgresql` (a socket), which node-postgres reads.
 */
export const ServiceUrl = (
  protocols: readonly string[],
  message: string,
  { each = false, noHost = false } = {},
) =>
  ValidateBy(
    {
      name: 'serviceUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || /\s/.test(value) || !/^[a-z]+:\/\//i.test(value))
            return false;
          const url =
            URL.parse(value) ?? (noHost ? URL.parse(value.replace('@/', '@host/')) : null);
          return (
            url !== null &&
            protocols.includes(url.protocol) &&
            isDecodable(url.username) &&
            isDecodable(url.password)
          );
        },
      },
    },
    { message, each },
  );

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

/** A value other than `other`'s (`anyOf`, such as port 0 for any free port, may be shared). */
export const DiffersFrom = (other: string, why: string, anyOf?: unknown) =>
  ValidateBy({
    name: 'differsFrom',
    validator: {
      validate: (value, args) =>
        value === anyOf || value !== (args?.object as Record<string, unknown>)[other],
      defaultMessage: (args) => `${args?.property} must differ from ${other}: ${why}`,
    },
  });
