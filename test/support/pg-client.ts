import { Client, ClientConfig, Pool, PoolConfig } from 'pg';

/**
 * pg clients and pools for a test's own statements. A connection that breaks (a failover, a
 * proxy that drops it, a database dropped WITH (FORCE)) emits 'error', and unheard that is an
 * uncaught exception: the whole file fails, whatever its tests did. Heard here, the break fails
 * the statement that needed the connection, which is where a test sees it.
 */
export function testClient(config: string | ClientConfig): Client {
  const client = new Client(config);
  client.on('error', () => undefined);
  return client;
}

export function testPool(config: PoolConfig): Pool {
  const pool = new Pool(config);
  pool.on('error', () => undefined);
  return pool;
}
