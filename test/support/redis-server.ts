import { ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from '../../src/dev/free-port';
import { programPath } from './optional-program';
import { TcpProxy } from './tcp-proxy';

/** A Redis of the test's own on `port` (no other suite can touch its keys), ready for connections. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(programPath('redis-server'), [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
  ]);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${output}`)));
  });
  return child;
}

/**
 * A Redis of the test's own, a direct client to read its keys, and a TCP proxy in front of it
 * for the app, which the test takes down and up to cut Redis off.
 */
export async function startProxiedRedis(): Promise<{
  server: ChildProcess;
  redis: Redis;
  proxy: TcpProxy;
}> {
  const port = await freePort();
  const server = await startRedis(port);
  const redis = new Redis(port, '127.0.0.1');
  const proxy = new TcpProxy('127.0.0.1', port);
  await proxy.up();
  return { server, redis, proxy };
}
