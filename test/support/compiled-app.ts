import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client as PgClient } from 'pg';

export const run = promisify(execFile);

/** Compiles src/ as `npm run build` does, inside the project so node_modules resolves. */
export async function compileApp(): Promise<string> {
  mkdirSync('node_modules/.cache', { recursive: true });
  const outDir = mkdtempSync('node_modules/.cache/links-clients-dist-');
  await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', outDir]);
  return outDir;
}

/** A database of its own on the test server, beside the suite's (which createTestApp owns). */
export async function onTestServer(sql: string): Promise<void> {
  const server = new PgClient({ connectionString: process.env.TEST_SERVER_URL });
  await server.connect();
  try {
    await server.query(sql);
  } finally {
    await server.end();
  }
}

export interface RunningApi {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  /** The first JSON log line matching, waiting for it up to 5 s. */
  logLine(matches: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Starts `node <main.js>` and resolves once it logs the URL it listens on. */
export async function startCompiledApi(
  mainJs: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<RunningApi> {
  const child = spawn('node', [mainJs], { env, cwd });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`exited with ${code}: ${stderr}${stdout}`)));
  });
  const logLine = async (matches: (line: Record<string, unknown>) => boolean) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = parseLogLines(stdout).find(matches);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such log line in:\n${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, url, stdout: () => stdout, logLine, exited };
}

export function parseLogLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
