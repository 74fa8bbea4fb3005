import { Request } from 'express';

// An id of 255 characters, each percent-encoded as UTF-8, fits whole; a path of 16 KiB would
// make one log line past what log shippers keep as one record.
const MAX_LOGGED_PATH = 1024;

/**
 * A request's path as logs show it: never its query string, and not at all past
 * MAX_LOGGED_PATH. Not cut either: a cut could keep part of an API key the caller put there,
 * which the log's mask, matching whole keys, would then miss.
 */
export function loggedPath(req: Request): string {
  const path = req.originalUrl.split('?')[0];
  return path.length > MAX_LOGGED_PATH ? `(a path of ${path.length} characters)` : path;
}
