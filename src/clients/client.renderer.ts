import { isoMillis } from '../database/printed-timestamp';

/** A client's columns as PostgreSQL prints them (printedTimestamp). */
export interface ClientColumns {
  id: string;
  linkId: string;
  isDeleted: boolean;
  status: string;
  createdAt: string;
  updatedAt: string;
}

/** One client's JSON text (CONTRACT §1: exactly these fields, in this order). */
export function clientJson(client: ClientColumns): string {
  return (
    `{"id":${JSON.stringify(client.id)},"linkId":${JSON.stringify(client.linkId)},` +
    `"isDeleted":${client.isDeleted},"status":${JSON.stringify(client.status)},` +
    `"createdAt":"${isoMillis(client.createdAt)}","updatedAt":"${isoMillis(client.updatedAt)}"}`
  );
}
