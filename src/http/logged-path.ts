import { Request } from 'express';

// An id of 255 characters, each percent-encoded as UTF-8, fits whole; a path of 16 KiB would
// make one log line past what log shippers keep as one record.
const MAX_LOGGED_PATH = 1024;

/** A request's path as logs show it: never its query string, and cut past MAX_LOGGED_PATH. */
export function loggedPath(req: Request): string {
  const path = req.originalUrl.split('?')[0];
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}
