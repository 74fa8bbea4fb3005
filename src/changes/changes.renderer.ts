import { apiClient } from '../clients/client.renderer';
import { apiLink } from '../links/link.renderer';
import { Feed, FeedRows } from './changes.repository';
import { ChangesPage } from './changes.service';

const API_ROW: { [F in Feed]: (row: FeedRows[F]) => object } = {
  links: apiLink,
  clients: apiClient,
};

/** A feed page's JSON text: the rows as their resource shows them, then the meta. */
export function renderChangesPage<F extends Feed>({ feed, rows, meta }: ChangesPage<F>): string {
  return JSON.stringify({ data: rows.map(API_ROW[feed]), meta });
}
