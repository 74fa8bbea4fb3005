import { DataSource } from 'typeorm';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/api-keys/api-key-format';
import { DatabaseApiKeys } from '../../src/api-keys/database-api-keys';
import { KeysEnv } from '../../src/config/keys.env';
import { createSuiteDatabase, databaseReader, dropSuiteDatabase } from '../support/database';

// A managed key as the keys' snapshot holds it: its scope, and for a key limited to links how
// many it holds (what a scoped page shares between them: keyLinksMerge).
describe('DatabaseApiKeys', () => {
  let dataSource: DataSource;
  let keys: DatabaseApiKeys;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    keys = new DatabaseApiKeys(databaseReader(dataSource), { KEY_CACHE_TTL_MS: 0 } as KeysEnv);
  });
  afterAll(() => dropSuiteDatabase(dataSource));

  async function storedKey(links?: string[]): Promise<string> {
    const key = generateApiKey();
    const [{ id }] = await dataSource.query(
      `INSERT INTO api_keys (name, prefix, key_hash, is_link_scoped)
       VALUES ('spec', $1, decode($2, 'hex'), $3) RETURNING id`,
      [displayPrefix(key), hashApiKey(key), links !== undefined],
    );
    if (links?.length) {
      await dataSource.query(
        'INSERT INTO api_key_links (key_id, link_id) SELECT $1, unnest($2::text[])',
        [id, links],
      );
    }
    return key;
  }

  it('reads each key with its scope and the number of its links', async () => {
    const [full, three, none] = [
      await storedKey(),
      await storedKey(['link-a', 'link-b', 'link-c']),
      await storedKey([]),
    ];
    await expect(keys.find(full)).resolves.toMatchObject({ isLinkScoped: false, linkCount: 0 });
    await expect(keys.find(three)).resolves.toMatchObject({ isLinkScoped: true, linkCount: 3 });
    await expect(keys.find(none)).resolves.toMatchObject({ isLinkScoped: true, linkCount: 0 });
  });
});
