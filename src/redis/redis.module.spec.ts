import { MODULE_METADATA } from '@nestjs/common/constants';
import { Registry } from 'prom-client';
import { RedisEnv } from '../config/redis.env';

interface FactoryProvider {
  provide: unknown;
  useFactory: (env: Partial<RedisEnv>, registry: Registry) => unknown;
}

describe('RedisModule', () => {
  it('loads ioredis only when REDIS_URL is set', () => {
    jest.isolateModules(() => {
      jest.doMock('ioredis', () => {
        throw new Error('ioredis was loaded');
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const loaded = require('./redis.module') as typeof import('./redis.module');
      const { RedisModule, SHARED_REDIS } = loaded;
      const providers = Reflect.getMetadata(
        MODULE_METADATA.PROVIDERS,
        RedisModule,
      ) as FactoryProvider[];
      const { useFactory } = providers.find(({ provide }) => provide === SHARED_REDIS)!;
      expect(useFactory({ REDIS_KEY_PREFIX: 'lc:' }, new Registry())).toBeNull();
      expect(() =>
        useFactory({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'lc:' }, new Registry()),
      ).toThrow('ioredis was loaded');
    });
  });
});
