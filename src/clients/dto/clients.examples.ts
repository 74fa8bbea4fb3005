import { exampleCursor } from '../../query/example-cursor';
import { listClientsScope } from './list-clients.query';

// Response examples for the OpenAPI document (taken from the demo data of `npm start`).
export const CLIENT_EXAMPLE = {
  id: 'client-00011',
  linkId: 'link-38',
  isDeleted: false,
  status: 'connected',
  createdAt: '2026-02-01T00:03:00.000Z',
  updatedAt: '2026-02-05T00:03:00.000Z',
};

const SECOND_CLIENT = {
  id: 'client-00012',
  linkId: 'link-01',
  isDeleted: false,
  status: 'connected',
  createdAt: '2026-02-01T00:04:00.000Z',
  updatedAt: '2026-02-06T00:04:00.000Z',
};

const NEXT_CURSOR = exampleCursor(
  { timestamp: '2026-02-01T00:04:00.000000Z', id: SECOND_CLIENT.id },
  listClientsScope({ status: 'connected', isDeleted: false }),
);

export const CLIENTS_PAGE_EXAMPLES = {
  page: {
    summary: 'A page by number: ?status=connected&isDeleted=false&limit=2&page=3',
    value: {
      data: [CLIENT_EXAMPLE, SECOND_CLIENT],
      meta: { page: 3, limit: 2, total: 1440, totalPages: 720, nextCursor: NEXT_CURSOR },
    },
  },
  cursor: {
    summary: 'The page after a cursor: ?status=connected&isDeleted=false&limit=2&cursor=…',
    value: { data: [SECOND_CLIENT], meta: { limit: 2, nextCursor: null } },
  },
};
