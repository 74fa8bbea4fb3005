import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runDir } from './run-dir';
import { waitFor } from './wait-for';

export const run = promisify(execFile);

/**
 * src/ compiled as `npm run build` does, once per run: the first test file to ask compiles it
 * into the run's directory (mkdir is the lock), the others wait for it. Read-only to callers;
 * global-teardown removes it.
 */
export async function compiledApp(): Promise<string> {
  const outDir = join(runDir(), 'dist');
  const outcome = join(runDir(), 'dist.outcome');
  try {
    mkdirSync(`${outDir}.lock`);
  } catch {
    const text = await waitFor(() => existsSync(outcome) && readFileSync(outcome, 'utf8'), {
      what: 'another test file to compile the app',
      timeoutMs: 180000,
      intervalMs: 200,
    });
    if (text !== 'ok') throw new Error(`compiling the app failed: ${text}`);
    return outDir;
  }
  try {
    await run(process.execPath, [
      'node_modules/typescript/bin/tsc',
      '-p',
      'tsconfig.build.json',
      '--outDir',
      outDir,
    ]);
  } catch (error) {
    writeFileSync(outcome, String((error as { stdout?: string }).stdout ?? error));
    throw error;
  }
  writeFileSync(outcome, 'ok');
  return outDir;
}

export interface RunningApi {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** The first JSON log line matching, waiting for it (10 s unless told). */
  logLine(
    matches: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
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
  const logLine = (matches: (line: Record<string, unknown>) => boolean, timeoutMs = 10000) =>
    waitFor(() => parseLogLines(stdout).find(matches), {
      what: () => `a matching log line in:\n${stdout}`,
      timeoutMs,
    });
  return { child, url, stdout: () => stdout, stderr: () => stderr, logLine, exited };
}

export function parseLogLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
