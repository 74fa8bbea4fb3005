import { IncomingMessage } from 'node:http';

// What an absolute-form target adds before the path: scheme, "://", authority (user info too).
const SCHEME_AND_AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i;

/**
 * A request target in absolute form (`GET http://host/api/data/links`, RFC 9112, as sent to a
 * proxy) names the resource its path names; Express routes it by that path, but the rest of
 * the app reads the URL as sent. Rewritten to its path and query before Express sees it (a
 * listener ahead of Express's on the server), it gets the data route's headers, the /docs
 * files are found under their mounts, and its problem `instance` and log line show the path
 * without the authority's user and password.
 */
export function useOriginForm(req: IncomingMessage): void {
  const url = req.url ?? '/';
  if (url.startsWith('/')) return;
  const prefix = SCHEME_AND_AUTHORITY.exec(url);
  if (!prefix) return;
  const rest = url.slice(prefix[0].length);
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}
