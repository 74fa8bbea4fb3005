import { isoMillis } from '../database/printed-timestamp';
import { ClientRow } from './clients.repository';
import { ClientsPage } from './clients.service';

// JSON text is written here rather than by JSON.stringify of objects: no Date per value
// (docs/performance.md). Exactly the fields of docs/api.md, in this order.

/** One client's JSON text. */
export function renderClient(client: ClientRow): string {
  return (
    `{"id":${JSON.stringify(client.id)},"linkId":${JSON.stringify(client.linkId)},` +
    `"isDeleted":${client.isDeleted},"status":${JSON.stringify(client.status)},` +
    `"createdAt":"${isoMillis(client.createdAt)}","updatedAt":"${isoMillis(client.updatedAt)}"}`
  );
}

/** The List Clients body. */
export function renderClientsPage({ clients, meta }: ClientsPage): string {
  return `{"data":[${clients.map(renderClient).join(',')}],"meta":${JSON.stringify(meta)}}`;
}
