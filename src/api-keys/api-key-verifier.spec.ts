import { createHash } from 'node:crypto';
import { Request } from 'express';
import { ApiKeyVerifier } from './api-key-verifier';
import { DatabaseApiKeys } from './database-api-keys';
import { EnvironmentApiKeys } from './environment-keys';
import { LastUsedRecorder } from './last-used-recorder';

const withKey = (key?: string) =>
  ({ headers: key === undefined ? {} : { authorization: `Bearer ${key}` } }) as Request;

describe('ApiKeyVerifier.callerOf', () => {
  const databaseKeys = { find: jest.fn(async () => ({ id: 'key-row-1' })) };
  const lastUsed = { note: jest.fn() };
  const verifier = new ApiKeyVerifier(
    new EnvironmentApiKeys(['env-key']),
    databaseKeys as unknown as DatabaseApiKeys,
    lastUsed as unknown as LastUsedRecorder,
  );
  beforeEach(() => jest.clearAllMocks());

  it('looks a request up once, however many guards ask', async () => {
    const request = withKey('lcapi_stored');
    const answers = await Promise.all([verifier.callerOf(request), verifier.callerOf(request)]);
    expect(answers).toEqual([{ keyId: 'key-row-1' }, { keyId: 'key-row-1' }]);
    expect(databaseKeys.find).toHaveBeenCalledTimes(1);
    expect(lastUsed.note).toHaveBeenCalledTimes(1);
  });

  it('looks each request up on its own', async () => {
    await expect(verifier.callerOf(withKey('env-key'))).resolves.toEqual({
      keyId: `env-${createHash('sha256').update('env-key').digest('hex').slice(0, 8)}`,
    });
    databaseKeys.find.mockResolvedValueOnce(undefined as never);
    await expect(verifier.callerOf(withKey('wrong'))).resolves.toBe(false);
  });

  it('answers false without a lookup when no bearer key was sent', async () => {
    await expect(verifier.callerOf(withKey())).resolves.toBe(false);
    expect(databaseKeys.find).not.toHaveBeenCalled();
  });
});
