import pino from 'pino';

/** Lines are written in batches of at least this many bytes… */
export const LOG_BATCH_BYTES = 4096;
/** …or, when traffic is light, at least this often. */
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Where JSON log lines go: a file descriptor (stdout by default), written asynchronously so a
 * busy pipe never blocks the event loop on a request's log line. Each write hands a buffer to
 * libuv's thread pool, which costs more than the line itself: lines gather into batches of
 * ~4 KiB (some fifteen access lines), and whatever is pending goes out within a second. pino
 * flushes what is still pending synchronously when the process exits, so a last line before
 * process.exit is kept.
 */
export function createLogDestination(fd = 1) {
  return pino.destination({
    dest: fd,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
  });
}
