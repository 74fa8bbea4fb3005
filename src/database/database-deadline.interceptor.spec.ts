import { ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { lastValueFrom, of, delay } from 'rxjs';
import { DatabaseDeadlineInterceptor } from './database-deadline.interceptor';

const interceptor = new DatabaseDeadlineInterceptor({
  get: () => 50,
} as unknown as ConfigService<never, true>);
const run = (ms: number) =>
  lastValueFrom(interceptor.intercept({} as never, { handle: () => of('done').pipe(delay(ms)) }));

describe('DatabaseDeadlineInterceptor', () => {
  it('lets a handler finish within DATABASE_TIMEOUT_MS', async () => {
    await expect(run(5)).resolves.toBe('done');
  });

  it('answers 503 when the handler takes longer, however the time was spent', async () => {
    await expect(run(200)).rejects.toBeInstanceOf(ServiceUnavailableException);
  });
});
