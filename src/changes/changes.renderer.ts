import { apiClient } from '../clients/client.renderer';
import { apiLink } from '../links/link.renderer';
import { Feed, FeedRows } from './changes.repository';
import { ChangesPage } from './changes.service';

const API_ROW: { [F in Feed]: (row: FeedRows[F]) => object } = {
  links: apiLink,
  clients: apiClient,
};

// Polls at one position answered by one read share one page, and so its text.
const rendered = new WeakMap<ChangesPage, string>();

/** A feed page's JSON text: the rows as their resource shows them, then the meta. */
export function renderChangesPage<F extends Feed>(page: ChangesPage<F>): string {
  let text = rendered.get(page);
  if (text === undefined) {
    const { feed, rows, meta } = page;
    text = JSON.stringify({ data: rows.map(API_ROW[feed]), meta });
    rendered.set(page, text);
  }
  return text;
}
