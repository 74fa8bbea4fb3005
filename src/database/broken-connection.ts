import { Pool } from 'pg';
import { withinDeadline } from './within-deadline';

/**
 * The 'error' listener every checked-out connection needs. pg emits 'error' on a connection
 * that breaks (the server stopped, the socket closed), and unheard that is an uncaught exception
 * that ends the process; pg-pool listens only while a connection is idle. The broken
 * connection's query fails as well, and that failure is what its caller reports. Removed only
 * just before the connection is released, nothing in between.
 */
export const ignoreBreak = (): void => undefined;

/**
 * `SELECT 1` on one of `pool`'s connections, answered within `timeoutMs` (connecting and the
 * query each have the pool's timeouts; together they must keep it too), else an error. Answered,
 * the connection goes back; failed, it is dropped.
 */
export function selectOne(pool: Pool, timeoutMs: number): Promise<void> {
  return withinDeadline(selectOneNow(pool), timeoutMs, () => new Error('no answer in time'));
}

async function selectOneNow(pool: Pool): Promise<void> {
  const connection = await pool.connect();
  connection.on('error', ignoreBreak);
  let failure: Error | undefined;
  try {
    await connection.query('SELECT 1');
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    connection.removeListener('error', ignoreBreak);
    connection.release(failure);
  }
}
