import { DataSource } from 'typeorm';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format';
import { ApiKey } from './api-key.entity';
import { ApiKeyLink } from './api-key-link.entity';
import { Operation } from './key-scope';

/**
 * What a key may see (docs/operations.md, "Scoped keys"): `operations` (undefined: every one)
 * and `links` (undefined: every link; a list, even empty: only those).
 */
export interface KeyScopeChange {
  operations?: readonly Operation[] | null;
  links?: readonly string[] | null;
}

/** A key as `keys list` shows it: its record, and the links it is limited to, if it is. */
export interface ListedApiKey {
  record: ApiKey;
  links?: readonly string[];
}

export interface CreatedApiKey {
  record: ApiKey;
  /** The only time the key exists outside the caller's hands: print it once. */
  key: string;
}

/** The operations behind `npm run keys`: issue, list and revoke managed keys. */
export class ApiKeyCommands {
  constructor(private readonly dataSource: DataSource) {}

  private get repository() {
    return this.dataSource.getRepository(ApiKey);
  }

  async create(
    name: string,
    expiresAt: Date | null = null,
    scope: KeyScopeChange = {},
  ): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const id = await this.dataSource.transaction(async (manager) => {
      const { id } = await manager.getRepository(ApiKey).save({
        name,
        prefix: displayPrefix(key),
        keyHash: Buffer.from(hashApiKey(key), 'hex'),
        expiresAt,
        operations: scope.operations ? [...scope.operations] : null,
        isLinkScoped: scope.links !== undefined && scope.links !== null,
      });
      await manager.getRepository(ApiKeyLink).insert(linksOf(id, scope.links));
      return id;
    });
    return { record: await this.repository.findOneByOrFail({ id }), key };
  }

  /**
   * Changes a key's scope, by id or prefix: `operations` and `links` each replaced when given
   * (null: every one again), left as they are when undefined. In one transaction.
   */
  async scope(idOrPrefix: string, change: KeyScopeChange): Promise<ListedApiKey | null> {
    const key = await this.find(idOrPrefix);
    if (!key) return null;
    await this.dataSource.transaction(async (manager) => {
      if (change.operations !== undefined) {
        const operations = change.operations ? [...change.operations] : null;
        await manager.getRepository(ApiKey).update(key.id, { operations });
      }
      if (change.links !== undefined) {
        await manager.getRepository(ApiKey).update(key.id, { isLinkScoped: change.links !== null });
        await manager.getRepository(ApiKeyLink).delete({ keyId: key.id });
        await manager.getRepository(ApiKeyLink).insert(linksOf(key.id, change.links));
      }
    });
    return (await this.list()).find(({ record }) => record.id === key.id) ?? null;
  }

  async list(): Promise<ListedApiKey[]> {
    const records = await this.repository.find({ order: { createdAt: 'ASC', id: 'ASC' } });
    const links = await this.dataSource
      .getRepository(ApiKeyLink)
      .find({ order: { keyId: 'ASC', linkId: 'ASC' } });
    return records.map((record) => ({
      record,
      links: record.isLinkScoped
        ? links.filter(({ keyId }) => keyId === record.id).map(({ linkId }) => linkId)
        : undefined,
    }));
  }

  /** Revokes by id or by prefix; revoking twice keeps the first revocation time. */
  async revoke(idOrPrefix: string): Promise<ApiKey | null> {
    const key = await this.find(idOrPrefix);
    if (!key) return null;
    await this.dataSource.query(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1',
      [key.id],
    );
    return this.repository.findOneByOrFail({ id: key.id });
  }

  private find(idOrPrefix: string): Promise<ApiKey | null> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
      idOrPrefix,
    );
    return this.repository.findOneBy(isUuid ? { id: idOrPrefix } : { prefix: idOrPrefix });
  }
}

const linksOf = (keyId: string, links: readonly string[] | null | undefined) =>
  [...new Set(links ?? [])].map((linkId) => ({ keyId, linkId }));
