import { ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { ShutdownState } from '../health/shutdown-state';
import { ThrottlerException } from '@nestjs/throttler';
import { TOO_MANY_WAITING_FOR_KEY } from '../errors/error-texts';
import {
  RETRY_AFTER_SECONDS_WHEN_BUSY,
  ServiceBusyException,
} from '../errors/service-busy.exception';
import { InFlightRequests } from '../limits/in-flight-requests';
import { SHED_COUNTER } from '../limits/shed-counter';
import { ChangeNotifications } from './change-notifications';
import { Feed } from './changes.repository';
import { PollWakeUps, WakeCause } from './poll-wake-ups';

/** A read of the feed while waiting: its answer when it found rows. */
export type WaitingRead<T> = () => Promise<{ found?: T; isHeldBack: boolean }>;

/**
 * The long polls of the change feeds waiting on this pod (`wait`, docs/api.md "Change feeds"),
 * capped by MAX_WAITING_POLLS (a 503 past it) and MAX_WAITING_POLLS_PER_KEY (a 429). A waiting poll holds no database connection and
 * does not count against MAX_REQUESTS_IN_FLIGHT or MAX_REQUESTS_PER_KEY, except while it
 * reads. Each ends with rows, at its deadline, when its client leaves, or at once on SIGTERM.
 */
@Injectable()
export class WaitingPolls implements BeforeApplicationShutdown {
  private readonly waiting = new Map<PollWakeUps, Feed>();
  private readonly perKey = new Map<string, number>();
  private readonly max: number;
  private readonly maxPerKey: number;
  private readonly wakeUps: Counter<'feed' | 'cause'>;
  private isClosed = false;

  constructor(
    limits: LimitsEnv,
    private readonly notifications: ChangeNotifications,
    private readonly shutdown: ShutdownState,
    private readonly inFlight: InFlightRequests,
    registry: Registry,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    this.max = limits.MAX_WAITING_POLLS;
    this.maxPerKey = limits.MAX_WAITING_POLLS_PER_KEY;
    const waiting = this.waiting;
    new Gauge({
      name: 'change_feed_waiting_polls',
      help: 'Long polls of the change feeds waiting on this pod',
      registers: [registry],
      collect() {
        this.set(waiting.size);
      },
    });
    this.wakeUps = new Counter({
      name: 'change_feed_wakeups_total',
      help: 'Reads by waiting long polls, by feed and cause (a notified change, or a re-check)',
      labelNames: ['feed', 'cause'],
      registers: [registry],
    });
    notifications.subscribe((feed) => {
      for (const [poll, of] of waiting) if (feed === undefined || feed === of) poll.notified();
    });
    shutdown.onShutdown(() => this.endAll());
  }

  /**
   * Reads `feed` each time it may have changed, until a read finds rows (its answer) or
   * `seconds` pass, the client leaves or the pod shuts down (undefined).
   */
  async wait<T>(
    feed: Feed,
    seconds: number,
    res: ServerResponse,
    read: WaitingRead<T>,
  ): Promise<T | undefined> {
    if (this.isClosing || res.closed) return undefined;
    if (this.waiting.size >= this.max) {
      this.shed.inc({ reason: 'waiting_polls' });
      throw new ServiceBusyException('waiting_polls');
    }
    const keyId = this.inFlight.keyOf(res) ?? '';
    const ofKey = this.perKey.get(keyId) ?? 0;
    if (ofKey >= this.maxPerKey) {
      this.shed.inc({ reason: 'key_waiting_polls' });
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS_WHEN_BUSY));
      throw new ThrottlerException(TOO_MANY_WAITING_FOR_KEY);
    }
    this.perKey.set(keyId, ofKey + 1);
    const poll = new PollWakeUps(() => this.notifications.isListening);
    const end = () => poll.end();
    const deadline = setTimeout(end, seconds * 1000);
    res.once('close', end);
    this.waiting.set(poll, feed);
    this.inFlight.suspend(res);
    try {
      let cause: WakeCause | undefined;
      while ((cause = await poll.next())) {
        this.wakeUps.inc({ feed, cause });
        this.inFlight.resume(res);
        const { found, isHeldBack } = await read();
        if (found !== undefined) return found;
        this.inFlight.suspend(res);
        poll.foundNothing(isHeldBack);
      }
      // Answered for a shutdown: its client reconnects elsewhere (as ShutdownState does).
      if (this.isClosing && !res.headersSent) res.setHeader('Connection', 'close');
      return undefined;
    } finally {
      clearTimeout(deadline);
      res.removeListener('close', end);
      this.waiting.delete(poll);
      const left = (this.perKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.perKey.set(keyId, left);
      else this.perKey.delete(keyId);
      this.inFlight.resume(res);
    }
  }

  /** Tests and app.close(): nothing keeps waiting once the app closes. */
  beforeApplicationShutdown(): void {
    this.endAll();
  }

  private get isClosing(): boolean {
    return this.shutdown.isShuttingDown || this.isClosed;
  }

  private endAll(): void {
    this.isClosed = true;
    for (const poll of this.waiting.keys()) poll.end();
  }
}
