import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DatabaseApiKeys } from '../api-keys/database-api-keys';
import { LastUsedRecorder } from '../api-keys/last-used-recorder';
import { ApiKeys } from './environment-keys';

export interface ApiCaller {
  authenticatedBy: 'api-key';
  /** Names the key without revealing it: `env-1` for API_KEYS' first key, else the row id. */
  keyId: string;
}

/** The two sources of keys (CONTRACT §4): API_KEYS, then active keys in the database. */
@Injectable()
export class ApiKeyVerifier implements OnApplicationBootstrap {
  constructor(
    private readonly environmentKeys: ApiKeys,
    private readonly databaseKeys: DatabaseApiKeys,
    private readonly lastUsed: LastUsedRecorder,
  ) {}

  private readonly verified = new WeakMap<object, Promise<ApiCaller | false>>();

  /**
   * verify() once per request: the rate limit (which budget) and authentication (allowed or
   * not) both need the answer, for the key in that request's Authorization header.
   */
  verifyRequest(request: object, key: string): Promise<ApiCaller | false> {
    let answer = this.verified.get(request);
    if (!answer) {
      answer = this.verify(key);
      this.verified.set(request, answer);
    }
    return answer;
  }

  async verify(key: string): Promise<ApiCaller | false> {
    const index = this.environmentKeys.indexOf(key);
    if (index !== -1) return { authenticatedBy: 'api-key', keyId: `env-${index + 1}` };
    const stored = await this.databaseKeys.find(key);
    if (!stored) return false;
    this.lastUsed.note(stored.id);
    return { authenticatedBy: 'api-key', keyId: stored.id };
  }

  /**
   * CONTRACT §5: refuse to start when every source of keys is missing. The database counts
   * as a source when it holds an active key; reading it now also warms the cache and fails
   * the start clearly when the api_keys migration has not been run.
   */
  async onApplicationBootstrap(): Promise<void> {
    let count: number;
    try {
      count = await this.databaseKeys.count();
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === '42P01') {
        throw new Error('The api_keys table is missing: run `npm run migration:run` first', {
          cause: error,
        });
      }
      throw error;
    }
    if (count === 0 && this.environmentKeys.size === 0) {
      throw new Error(
        'No API keys: set API_KEYS, or create a key with `npm run keys -- create --name <name>`',
      );
    }
  }
}
