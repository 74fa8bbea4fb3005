import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Request } from 'express';
import { bearerKeyOf } from './bearer-key';
import { DatabaseApiKeys } from './database-api-keys';
import { EnvironmentApiKeys } from './environment-keys';
import { LastUsedRecorder } from './last-used-recorder';
import { Operation } from './key-scope';

export interface ApiCaller {
  /** Names the key without revealing it: `env-3f9a1c2b` for an API_KEYS key, else the row id. */
  keyId: string;
  /** The operations it may use (docs/api.md, "Scoped keys"); undefined: every one. */
  operations?: readonly Operation[];
  /** Whether it sees only the rows of its links, which each request's SQL reads. */
  isLinkScoped?: boolean;
  /** How many links it held as of the key cache (KEY_CACHE_TTL_MS); 0 unless link-scoped. */
  linkCount?: number;
}

const CALLER = Symbol('caller');
type WithCaller = Request & { [CALLER]?: Promise<ApiCaller | false> };

/** The two sources of keys (docs/api.md, Authentication): API_KEYS, then the database. */
@Injectable()
export class ApiKeyVerifier implements OnApplicationBootstrap {
  constructor(
    private readonly environmentKeys: EnvironmentApiKeys,
    private readonly databaseKeys: DatabaseApiKeys,
    private readonly lastUsed: LastUsedRecorder,
  ) {}

  /** Who the request's Authorization header names, or false (no key, or not a valid one). */
  callerOf(request: Request): Promise<ApiCaller | false> {
    // The rate limit (which budget) and authentication (allowed or not) both ask who the
    // caller is; a request's key is looked up once, whoever asks first.
    return ((request as WithCaller)[CALLER] ??= this.callerNamedBy(bearerKeyOf(request)));
  }

  private async callerNamedBy(key: string | undefined): Promise<ApiCaller | false> {
    if (key === undefined) return false;
    const environmentKeyId = this.environmentKeys.idOf(key);
    if (environmentKeyId) return { keyId: environmentKeyId };
    const stored = await this.databaseKeys.find(key);
    if (!stored) return false;
    this.lastUsed.note(stored.id);
    const { id, operations, isLinkScoped, linkCount } = stored;
    return { keyId: id, operations, isLinkScoped, linkCount };
  }

  /**
   * Refuses to start when every source of keys is missing. The database counts as a source
   * when it holds an active key; reading it now also warms the cache.
   */
  async onApplicationBootstrap(): Promise<void> {
    const count = await this.databaseKeys.count();
    if (count === 0 && this.environmentKeys.size === 0) {
      throw new Error(
        'No API keys: set API_KEYS, or create a key with `npm run keys -- create --name <name>`',
      );
    }
  }
}
