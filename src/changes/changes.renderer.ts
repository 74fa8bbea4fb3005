import etag from 'etag';
import { apiClient } from '../clients/client.renderer';
import { apiLink } from '../links/link.renderer';
import { Feed, FeedRows } from './changes.repository';
import { ChangesPage } from './changes.service';
import { KeptBody } from '../responses/shared-render';
import { PrecompressedBody } from '../responses/precompressed-body';

const API_ROW: { [F in Feed]: (row: FeedRows[F]) => object } = {
  links: apiLink,
  clients: apiClient,
};

// Polls at one position answered by one read share one page, and so its body: made, tagged
// and compressed (once per encoding asked for) once for all of them.
const rendered = new WeakMap<ChangesPage, KeptBody>();

/** A feed page's JSON body, the rows as their resource shows them, then the meta; its ETag. */
export function renderChangesPage<F extends Feed>(page: ChangesPage<F>): KeptBody {
  let kept = rendered.get(page);
  if (kept === undefined) {
    const { feed, rows, meta } = page;
    const bytes = Buffer.from(JSON.stringify({ data: rows.map(API_ROW[feed]), meta }));
    kept = { body: new PrecompressedBody(bytes), etag: etag(bytes, { weak: true }) };
    rendered.set(page, kept);
  }
  return kept;
}
