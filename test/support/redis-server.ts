import { ChildProcess, spawn } from 'node:child_process';
import { programPath } from './optional-program';

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
