/**
 * The client statuses List Clients can filter on (docs/api.md, Resources). Other values may be
 * stored, and are returned as stored; only these can be asked for.
 */
export const FILTERABLE_STATUSES = ['new', 'connected'] as const;
export type FilterableStatus = (typeof FILTERABLE_STATUSES)[number];
