import { isoMillis } from '../database/printed-timestamp';

/** A link's columns as PostgreSQL prints them (printedTimestamp). */
export interface LinkColumns {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** One link's JSON text (CONTRACT §1: exactly these fields, in this order). */
export function linkJson({ id, createdAt, updatedAt }: LinkColumns): string {
  return `{"id":${JSON.stringify(id)},"createdAt":"${isoMillis(createdAt)}","updatedAt":"${isoMillis(updatedAt)}"}`;
}
