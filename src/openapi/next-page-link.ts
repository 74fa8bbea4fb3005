import type { LinkObject } from '@nestjs/swagger';

/**
 * The OpenAPI link from a page's `meta.nextCursor` to the request that continues after it:
 * the same operation, with that cursor and the parameters a cursor is bound to (its filters)
 * and the page size carried over from the request. Stateful testers and generated clients
 * follow it to page with real cursors; a parameter the request did not give stays absent.
 */
export function nextPageLinks(
  operationId: string,
  carried: readonly string[],
): Record<string, LinkObject> {
  const fromRequest = carried.map((name) => [name, `$request.query.${name}`] as const);
  return {
    nextPage: {
      operationId,
      description: "The page after this one: this response's meta.nextCursor, same parameters",
      parameters: { cursor: '$response.body#/meta/nextCursor', ...Object.fromEntries(fromRequest) },
    },
  };
}
