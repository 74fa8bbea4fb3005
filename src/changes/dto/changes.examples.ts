import { CLIENT_EXAMPLE } from '../../clients/dto/clients.examples';
import { LINK_EXAMPLE } from '../../links/dto/links.examples';

const META = {
  limit: 100,
  nextCursor:
    'WyIyMDI2LTAyLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMDAwMDIiLCJhYmMiXQ.8YV0r3o1o0lWl2w0Y2r0xA',
  hasMore: false,
};

// Example bodies for the OpenAPI document: one changed row, then caught up.
export const CLIENT_CHANGES_EXAMPLE = {
  data: [{ ...CLIENT_EXAMPLE, isDeleted: true }],
  meta: META,
};
export const LINK_CHANGES_EXAMPLE = { data: [LINK_EXAMPLE], meta: META };
