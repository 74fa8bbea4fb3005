import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['an unknown host', withCode('ENOTFOUND')],
    [
      'a statement timeout (57014)',
      withCode('57014', 'canceling statement due to statement timeout'),
    ],
    ['an admin shutdown (57P01)', withCode('57P01')],
    ['a server starting up (57P03)', withCode('57P03')],
    ['too many connections (53300)', withCode('53300')],
    [
      "a replica's conflict with recovery (40001)",
      withCode('40001', 'canceling statement due to conflict with recovery'),
    ],
    ['a connection failure (08006)', withCode('08006')],
    ['a pool wait timeout', new Error('timeout exceeded when trying to connect')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a read while the pools close', new Error('Cannot use a pool after calling end on the pool')],
    [
      'a read once the pools have closed (08003)',
      withCode('08003', 'The database is not connected'),
    ],
    ['a wrapped driver error', new QueryFailedError('SELECT 1', [], withCode('57014'))],
    ['a cause chain', new Error('outer', { cause: withCode('ECONNREFUSED') })],
    ['an error from another realm', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }],
  ])('recognises %s', (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error (42601)', new QueryFailedError('SELEC', [], withCode('42601'))],
    ['an invalid text value (22P02)', withCode('22P02')],
    ['a deadlock (40P01)', withCode('40P01')],
    ['a plain bug', new TypeError('undefined is not a function')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ])('does not mistake %s for an outage', (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
