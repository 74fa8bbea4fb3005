import { DatabaseApiKeys } from '../api-keys/database-api-keys';
import { LastUsedRecorder } from '../api-keys/last-used-recorder';
import { ApiKeyVerifier } from './api-key-verifier';
import { ApiKeys } from './environment-keys';

describe('ApiKeyVerifier.verifyRequest', () => {
  const databaseKeys = { find: jest.fn(async () => ({ id: 'key-row-1' })) };
  const lastUsed = { note: jest.fn() };
  const verifier = new ApiKeyVerifier(
    new ApiKeys(['env-key']),
    databaseKeys as unknown as DatabaseApiKeys,
    lastUsed as unknown as LastUsedRecorder,
  );

  it('verifies a request once, however many guards ask', async () => {
    const request = {};
    const answers = await Promise.all([
      verifier.verifyRequest(request, 'lcapi_stored'),
      verifier.verifyRequest(request, 'lcapi_stored'),
    ]);
    expect(answers).toEqual([
      { authenticatedBy: 'api-key', keyId: 'key-row-1' },
      { authenticatedBy: 'api-key', keyId: 'key-row-1' },
    ]);
    expect(databaseKeys.find).toHaveBeenCalledTimes(1);
    expect(lastUsed.note).toHaveBeenCalledTimes(1);
  });

  it('verifies each request on its own', async () => {
    await expect(verifier.verifyRequest({}, 'env-key')).resolves.toEqual({
      authenticatedBy: 'api-key',
      keyId: 'env-1',
    });
    databaseKeys.find.mockResolvedValueOnce(undefined as never);
    await expect(verifier.verifyRequest({}, 'wrong')).resolves.toBe(false);
  });
});
