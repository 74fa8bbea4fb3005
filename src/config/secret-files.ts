import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** The variables holding secrets; each may be given instead as a file, `<NAME>_FILE`. */
export const SECRET_VARIABLES = [
  'API_KEYS',
  'CURSOR_SECRET',
  'CURSOR_SECRET_PREVIOUS',
  'DATABASE_URL',
  'DATABASE_REPLICA_URLS',
  'REDIS_URL',
] as const;

/**
 * Reads each `<NAME>_FILE` into `<NAME>`, in place and before validation (a Kubernetes Secret
 * mounted as files: never in the process's environment, where `kubectl exec` can read it). One
 * trailing newline is dropped, as `echo` and editors leave one. Returns why a file could not be
 * used, naming the variable; `<NAME>_FILE` is removed either way, so a second call is a no-op.
 */
export function readSecretFiles(env: Record<string, unknown>): string[] {
  return SECRET_VARIABLES.flatMap((name) => {
    const file = env[`${name}_FILE`];
    if (typeof file !== 'string' || file === '') return [];
    delete env[`${name}_FILE`];
    if (env[name] !== undefined && env[name] !== '')
      return [`${name} and ${name}_FILE are both set: set only one`];
    try {
      const content = regularFileContent(file);
      if (content === undefined) return [`${name}_FILE: ${file} is not a regular file`];
      env[name] = content.replace(/\r?\n$/, '');
      return [];
    } catch (error) {
      return [`${name}_FILE: ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`];
    }
  });
}

/**
 * The file's text, or undefined when it is not a regular file: reading a FIFO (or a device)
 * would wait for a writer, holding the boot without a word. Opened without blocking, then
 * checked, so what is read is what was checked.
 */
function regularFileContent(file: string): string | undefined {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } finally {
    closeSync(fd);
  }
}
