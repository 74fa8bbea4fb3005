import { ApiProperty } from '@nestjs/swagger';

/**
 * A row's timestamp as the API prints it (database/printed-timestamp.ts): RFC 3339 in UTC to
 * the millisecond, except the times RFC 3339 cannot express, which other systems may store and
 * which are passed on as PostgreSQL prints them rather than altered or refused.
 */
export const TimestampProperty = () =>
  ApiProperty({
    description:
      'RFC 3339 in UTC, to the millisecond. A time RFC 3339 cannot express is printed as ' +
      'PostgreSQL does: a year before 1 with ` BC` (`0044-03-15T12:00:00.000Z BC`), a year past ' +
      '9999 in full (`12026-01-02T03:04:05.000Z`), or `infinity` / `-infinity`.',
    anyOf: [
      { type: 'string', format: 'date-time' },
      {
        type: 'string',
        pattern: '^(-?infinity|\\d{4,}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z( BC)?)$',
      },
    ],
    example: '2026-01-02T03:04:05.000Z',
  });
