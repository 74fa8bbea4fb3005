/**
 * The query of a route that takes no parameters. StrictQueryPipe treats every key as unknown,
 * so `?anything` is a 400 (docs/api.md, Endpoints).
 */
export class NoQueryParams {}
