import { CLIENT_EXAMPLE } from '../../clients/dto/clients.examples';
import { LINK_EXAMPLE } from '../../links/dto/links.examples';
import { exampleCursor } from '../../query/example-cursor';
import { clientChangesScope, linkChangesScope } from './changes.query';

// Each feed's nextCursor after its one row, signed as examples are (example-cursor.ts).
const metaAfter = (updatedAt: string, id: string, scope: string) => ({
  limit: 100,
  nextCursor: exampleCursor({ timestamp: updatedAt.replace('Z', '000Z'), id }, scope),
  hasMore: false,
});

// Example bodies for the OpenAPI document: one changed row, then caught up.
export const CLIENT_CHANGES_EXAMPLE = {
  data: [{ ...CLIENT_EXAMPLE, isDeleted: true }],
  meta: metaAfter(CLIENT_EXAMPLE.updatedAt, CLIENT_EXAMPLE.id, clientChangesScope({})),
};
export const LINK_CHANGES_EXAMPLE = {
  data: [LINK_EXAMPLE],
  meta: metaAfter(LINK_EXAMPLE.updatedAt, LINK_EXAMPLE.id, linkChangesScope()),
};
