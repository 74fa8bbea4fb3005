import { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Counter } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { InFlightRequests } from './in-flight-requests';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const env = {
  MAX_REQUESTS_IN_FLIGHT: 1000,
  MAX_REQUESTS_PER_KEY: 1000,
  MAX_WAITING_POLLS: 10,
  MAX_WAITING_POLLS_PER_KEY: 10,
  RESPONSE_WRITE_TIMEOUT_MS: 30_000,
} as LimitsEnv;
const shed = { inc: jest.fn() } as unknown as Counter<'reason'>;

describe('InFlightRequests', () => {
  // The sweeper's list holds every response being answered, and only those.
  it('holds no response once it is released', async () => {
    const tracker = new InFlightRequests(env, shed);
    let collected = 0;
    const finalized = new FinalizationRegistry(() => collected++);
    const answerAll = () => {
      for (let i = 0; i < 100; i++) {
        const socket = { destroyed: false };
        const req = { url: '/api/data/clients', socket, headers: {} } as unknown as IncomingMessage;
        const res = {} as ServerResponse;
        finalized.register(res, i);
        tracker.admit(req, res, () => undefined);
        tracker.admitForKey(res, 'key');
        tracker.release(res);
      }
    };
    answerAll();
    for (let round = 0; round < 10 && collected < 100; round++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    tracker.onApplicationShutdown();
    expect(collected).toBe(100);
  });
});
