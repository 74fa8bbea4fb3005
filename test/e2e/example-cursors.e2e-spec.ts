import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientChangesScope, linkChangesScope } from '../../src/changes/dto/changes.query';
import { listClientsScope } from '../../src/clients/dto/list-clients.query';
import { EXAMPLE_CURSOR_SECRET } from '../../src/config/weak-secrets';
import { CursorCodec } from '../../src/query/signed-cursor';
import { filterCombinations, filterSamples } from '../support/client-filters';

const ROOT = join(__dirname, '../..');
const DOCUMENTS = [
  'openapi.json',
  'README.md',
  'clients/typescript/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
// A cursor as the API prints it: a base64url payload, a dot, a 16-byte MAC.
const CURSOR = /\b[A-Za-z0-9_-]{24,}\.[A-Za-z0-9_-]{22}\b/g;

// Every scope an example may show: each feed's (and the feeds' first format, whose cursors still
// work), and List Clients' with any of its filters.
const scopes = [
  linkChangesScope(),
  clientChangesScope({}),
  'changes/links',
  'changes/clients\0[null]',
  ...filterCombinations(filterSamples(['link-01', 'link-38'], [])).map(listClientsScope),
];

describe('Example cursors in the documentation', () => {
  const examples = DOCUMENTS.flatMap((path) =>
    [...readFileSync(join(ROOT, path), 'utf8').matchAll(CURSOR)].map(([cursor]) => [path, cursor]),
  );

  it('are there to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it.each(examples)('%s: %s is a real cursor of the example secret', (_path, cursor) => {
    const position = new CursorCodec({ current: EXAMPLE_CURSOR_SECRET }).decode(cursor, scopes);
    expect(position).toEqual({ timestamp: expect.any(String), id: expect.any(String) });
  });
});
