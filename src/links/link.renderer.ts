import { isoMillis } from '../database/printed-timestamp';
import { LinkRow } from './links.repository';

// JSON text is written here rather than by JSON.stringify of objects: no Date per value
// (docs/performance.md). Exactly the fields of docs/api.md, in this order.

/** One link's JSON text. */
export function renderLink({ id, createdAt, updatedAt }: LinkRow): string {
  return `{"id":${JSON.stringify(id)},"createdAt":"${isoMillis(createdAt)}","updatedAt":"${isoMillis(updatedAt)}"}`;
}

/** The List Links body. */
export function renderLinksList(links: LinkRow[]): string {
  return `{"data":[${links.map(renderLink).join(',')}],"meta":{"total":${links.length}}}`;
}
