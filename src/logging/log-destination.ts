import pino from 'pino';

/**
 * Where JSON log lines go: a file descriptor (stdout by default), written asynchronously so a
 * busy pipe never blocks the event loop on a request's log line. pino flushes what is still
 * pending synchronously when the process exits, so a last line before process.exit is kept.
 */
export function createLogDestination(fd = 1) {
  return pino.destination({ dest: fd, sync: false });
}
