import { renderClient } from '../clients/client.renderer';
import { renderLink } from '../links/link.renderer';
import { ChangesPage } from './changes.service';

const RENDER_ROW = { links: renderLink, clients: renderClient };

/** A feed page's JSON text: the rows as their resource renders them, then the meta. */
export function renderChangesPage({ feed, rows, meta }: ChangesPage): string {
  return `{"data":[${rows.map(RENDER_ROW[feed]).join(',')}],"meta":${JSON.stringify(meta)}}`;
}
