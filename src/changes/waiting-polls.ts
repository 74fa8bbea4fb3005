import { ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { DatabaseEnv } from '../config/database.env';
import { LimitsEnv } from '../config/limits.env';
import { ShutdownState } from '../health/shutdown-state';
import { ServiceBusyException } from '../errors/service-busy.exception';
import { ReadGate } from '../database/coalesced-read';
import { FairSlots } from '../limits/fair-slots';
import { LoopTurns } from '../limits/loop-turns';
import { InFlightRequests } from '../limits/in-flight-requests';
import { SHED_COUNTER } from '../limits/shed-counter';
import { ChangeWatcher } from './change-watcher';
import { Feed } from './changes.repository';
import { PollWakeUps, WakeUp } from './poll-wake-ups';

/**
 * A read of the feed while waiting, up to the wake-up's safe point: its answer when it found
 * rows, and the safe point it read up to.
 */
export type WaitingRead<T> = (wakeUp: WakeUp) => Promise<{ found?: T; readUpTo: string }>;

/**
 * Long polls that go on from a shared read in one turn of the event loop. One read may answer
 * thousands of polls (a change wakes every poll that follows it): in batches this size (a few
 * milliseconds of work each), timers, probes and other requests are served between them.
 */
export const ANSWERS_PER_TURN = 16;

/**
 * The long polls of the change feeds waiting on this pod (`wait`, docs/api.md "Change feeds"):
 * each is woken by the change watcher only for a change to its own feed and link, and reads
 * through a gate of its own (MAX_CONCURRENT_POLL_READS, shared fairly between keys), so that
 * however many polls one change wakes, their reads never take the database from ordinary
 * requests. A waiting poll holds no database connection. Each ends with rows, at its deadline,
 * when its client leaves, or at once on SIGTERM, and goes on in its key's turn (LoopTurns).
 */
@Injectable()
export class WaitingPolls implements BeforeApplicationShutdown {
  private readonly waiting = new Set<PollWakeUps>();
  private readonly reads: FairSlots;
  private readonly answers = new LoopTurns(ANSWERS_PER_TURN);
  private readonly readWaitMs: number;
  private readonly wakeUps: Counter<'feed' | 'cause'>;
  private isClosed = false;

  constructor(
    limits: LimitsEnv,
    database: DatabaseEnv,
    private readonly watcher: ChangeWatcher,
    private readonly shutdown: ShutdownState,
    private readonly inFlight: InFlightRequests,
    registry: Registry,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    this.reads = new FairSlots(limits.MAX_CONCURRENT_POLL_READS, limits.MAX_WAITING_POLLS);
    this.readWaitMs = database.DATABASE_TIMEOUT_MS;
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
      help: 'Reads by waiting long polls, by feed and cause (a change of theirs, or a re-check)',
      labelNames: ['feed', 'cause'],
      registers: [registry],
    });
    watcher.subscribe(({ links, safePoint }) => {
      for (const poll of waiting) poll.changed(links[poll.feed], safePoint);
    });
    shutdown.onShutdown(() => this.endAll());
  }

  /** The gate a long poll's reads pass, in its key's turn. */
  gateFor(res: ServerResponse): ReadGate {
    const keyId = this.keyOf(res);
    return () =>
      this.reads.acquire(keyId, this.readWaitMs, () => {
        this.shed.inc({ reason: 'poll_reads' });
        return new ServiceBusyException('poll_reads');
      });
  }

  /**
   * Reads `feed` (limited to `links`) each time it may have changed since `readUpTo`, until a
   * read finds rows (its answer) or `seconds` pass, the client leaves or the pod shuts down
   * (undefined); settles in the poll's turn (inTurn).
   */
  async wait<T>(
    feed: Feed,
    links: ReadonlySet<string> | undefined,
    readUpTo: string,
    seconds: number,
    res: ServerResponse,
    read: WaitingRead<T>,
  ): Promise<T | undefined> {
    if (this.isClosing || res.closed) return undefined;
    const key = this.keyOf(res);
    const poll = new PollWakeUps(feed, links, readUpTo);
    const end = () => poll.end();
    const deadline = setTimeout(end, seconds * 1000);
    res.once('close', end);
    this.waiting.add(poll);
    this.watcher.setActive(true);
    // What the watcher saw before this poll was listening, past what it read.
    if (!this.watcher.isWatching) poll.tell({ cause: 'recheck' });
    else if (this.watcher.hasChangedSince(readUpTo, feed, links)) {
      poll.tell({ cause: 'change', safePoint: this.watcher.position });
    }
    try {
      let wakeUp: WakeUp | undefined;
      while ((wakeUp = await poll.next())) {
        this.wakeUps.inc({ feed, cause: wakeUp.cause });
        const { found, readUpTo: reached } = await read(wakeUp);
        if (found !== undefined) return found;
        if (reached > poll.readUpTo) poll.readUpTo = reached;
      }
      // Answered for a shutdown: its client reconnects elsewhere (as ShutdownState does).
      if (this.isClosing && !res.headersSent) res.setHeader('Connection', 'close');
      return undefined;
    } finally {
      clearTimeout(deadline);
      res.removeListener('close', end);
      this.waiting.delete(poll);
      if (this.waiting.size === 0) this.watcher.setActive(false);
      // With rows, without, or failed: the polls that shared a read answer in batches.
      await this.turnOf(key, res);
    }
  }

  /**
   * What `read` settles with (rows or an error), once it is `res`'s key's turn: the requests
   * that shared a read go on ANSWERS_PER_TURN in a turn of the event loop.
   */
  async inTurn<T>(res: ServerResponse, read: Promise<T>): Promise<T> {
    const key = this.keyOf(res);
    try {
      return await read;
    } finally {
      await this.turnOf(key, res);
    }
  }

  /** A client gone is answered by no one: it waits for no turn. */
  private turnOf(key: string, res: ServerResponse): Promise<void> {
    return res.closed ? Promise.resolve() : this.answers.take(key);
  }

  private keyOf(res: ServerResponse): string {
    return this.inFlight.keyOf(res) ?? '';
  }

  /** Tests and app.close(): nothing keeps waiting once the app closes. */
  beforeApplicationShutdown(): void {
    this.endAll();
  }

  get isClosing(): boolean {
    return this.shutdown.isShuttingDown || this.isClosed;
  }

  private endAll(): void {
    this.isClosed = true;
    for (const poll of this.waiting) poll.end();
  }
}
