import { apiClient } from '../clients/client.renderer';
import { apiLink } from '../links/link.renderer';
import { ChangesPage } from './changes.service';

const API_ROW = { links: apiLink, clients: apiClient };

/** A feed page's JSON text: the rows as their resource shows them, then the meta. */
export function renderChangesPage({ feed, rows, meta }: ChangesPage): string {
  return JSON.stringify({ data: rows.map(API_ROW[feed]), meta });
}
