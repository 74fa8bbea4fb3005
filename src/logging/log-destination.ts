import pino from 'pino';

/** Lines are written in batches of at least this many characters… */
export const LOG_BATCH_CHARS = 16_384;
/** …or, when traffic is light, at least this often. */
export const LOG_FLUSH_INTERVAL_MS = 1000;

type Destination = ReturnType<typeof pino.destination>;

/**
 * Where JSON log lines go: a file descriptor (stdout by default), written asynchronously so a
 * busy pipe never blocks the event loop on a request's log line. Each write hands a buffer to
 * libuv's thread pool, which costs more than the line itself: lines gather into batches of
 * ~16 KiB (some sixty access lines), and whatever is pending goes out within a second. pino
 * flushes what is still pending synchronously when the process exits, so a last line before
 * process.exit is kept.
 */
export function createLogDestination(fd = 1): Destination {
  return gatherLines(
    pino.destination({ dest: fd, sync: false, periodicFlush: LOG_FLUSH_INTERVAL_MS }),
  );
}

/**
 * Lines gather in an array and reach sonic-boom as one string per batch. Left to batch them
 * itself (`minLength`), sonic-boom appends each line to its pending string and measures that
 * string's byte length, which makes V8 flatten it: a copy of the whole batch for every line.
 * Its own methods are wrapped on the instance, so its periodic flush and pino's flush on exit
 * take the gathered lines too.
 */
function gatherLines(destination: Destination): Destination {
  const { write, flush, flushSync, end } = destination;
  let lines: string[] = [];
  let length = 0;
  const take = () => {
    const batch = lines.join('');
    lines = [];
    length = 0;
    return batch;
  };
  const handOver = () => lines.length === 0 || write.call(destination, take());
  destination.write = (line: string) => {
    lines.push(line);
    length += line.length;
    return length < LOG_BATCH_CHARS || handOver();
  };
  destination.flush = (callback) => {
    handOver();
    flush.call(destination, callback);
  };
  // On exit: the gathered lines are queued behind what sonic-boom holds without starting an
  // asynchronous write (too late then), and its synchronous flush writes them all, in order,
  // retrying a pipe that is full.
  destination.flushSync = () => {
    const settings = destination as unknown as { minLength: number };
    const { minLength } = settings;
    settings.minLength = Infinity;
    handOver();
    settings.minLength = minLength;
    flushSync.call(destination);
  };
  destination.end = () => {
    handOver();
    end.call(destination);
  };
  return destination;
}
