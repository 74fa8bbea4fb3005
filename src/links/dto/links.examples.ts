// Response examples for the OpenAPI document (taken from the demo data of `npm start`).
export const LINK_EXAMPLE = {
  id: 'link-01',
  createdAt: '2026-01-01T01:00:00.000Z',
  updatedAt: '2026-01-01T01:00:00.000Z',
};

export const LINKS_LIST_EXAMPLE = {
  data: [
    LINK_EXAMPLE,
    { id: 'link-02', createdAt: '2026-01-01T02:00:00.000Z', updatedAt: '2026-01-01T02:00:00.000Z' },
  ],
  meta: { total: 2 },
};
