// An ES module consumer, compiled with tsc --strict against the package's declarations: a typed
// list, a cursor walk and the client feed followed until caught up. Prints what it saw as JSON.
import { ApiError, Client, createApiClient, Link } from '@links-clients/client';
import { followChanges } from '@links-clients/client/change-feed';
import { clientPages } from '@links-clients/client/iterate-clients';

const [baseUrl, apiKey, linkId] = process.argv.slice(2);
const api = createApiClient({ baseUrl, apiKey, retry: false });

const { data, error, response } = await api.GET('/api/data/links');
if (!data) throw new ApiError(response.status, error);
const links: Link[] = data.data;

const pages: string[][] = [];
for await (const page of clientPages(api, { linkId, status: 'new' }, { limit: 2 }))
  pages.push(page.clients.map((client: Client) => client.id));

const fed: string[] = [];
let cursor = '';
for await (const page of followChanges(api, 'clients', { minDelayMs: 10, maxIdlePolls: 1 })) {
  fed.push(...page.rows.map((row) => row.id));
  cursor = page.nextCursor;
}

console.log(JSON.stringify({ links: links.map((link) => link.id), pages, fed, cursor }));
