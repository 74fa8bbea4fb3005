import { DataSource } from 'typeorm';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format';
import { ApiKey } from './api-key.entity';

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

  async create(name: string, expiresAt: Date | null = null): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const { id } = await this.repository.save({
      name,
      prefix: displayPrefix(key),
      keyHash: Buffer.from(hashApiKey(key), 'hex'),
      expiresAt,
    });
    return { record: await this.repository.findOneByOrFail({ id }), key };
  }

  list(): Promise<ApiKey[]> {
    return this.repository.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Revokes by id or by prefix; revoking twice keeps the first revocation time. */
  async revoke(idOrPrefix: string): Promise<ApiKey | null> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
      idOrPrefix,
    );
    const key = await this.repository.findOneBy(
      isUuid ? { id: idOrPrefix } : { prefix: idOrPrefix },
    );
    if (!key) return null;
    await this.dataSource.query(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1',
      [key.id],
    );
    return this.repository.findOneByOrFail({ id: key.id });
  }
}
