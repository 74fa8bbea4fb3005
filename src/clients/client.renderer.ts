import { isoMillis } from '../database/printed-timestamp';
import { ClientRow } from './clients.repository';
import { ClientsPage } from './clients.service';

// A body is one JSON.stringify of plain objects, which V8 writes straight into one string; the
// timestamps are sliced from PostgreSQL's text, with no Date per value (docs/performance.md).

/** A client as the API shows it: exactly the fields of docs/api.md, in this order. */
export function apiClient(client: ClientRow) {
  return {
    id: client.id,
    linkId: client.linkId,
    isDeleted: client.isDeleted,
    status: client.status,
    createdAt: isoMillis(client.createdAt),
    updatedAt: isoMillis(client.updatedAt),
  };
}

/** One client's JSON text. */
export function renderClient(client: ClientRow): string {
  return JSON.stringify(apiClient(client));
}

/** The List Clients body. */
export function renderClientsPage({ clients, meta }: ClientsPage): string {
  return JSON.stringify({ data: clients.map(apiClient), meta });
}
