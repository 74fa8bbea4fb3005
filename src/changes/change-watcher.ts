import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { ChangedLinks, ChangesRepository, Feed } from './changes.repository';
import { RecentChanges } from './recent-changes';

/** How often the feeds' tails are read while polls wait, and while none does (a heartbeat). */
export const WATCH_EVERY_MS = 100;
const IDLE_EVERY_MS = 5000;
/** After a failed read, the next comes sooner than a heartbeat: waiting polls re-check then. */
export const RETRY_EVERY_MS = 1000;

/** What the watcher tells: the links changed before `safePoint`, or a re-check for everyone. */
export interface WatchedChange {
  links: Record<Feed, ChangedLinks>;
  /** Served up to here, every change told is in the feed; undefined: read your own. */
  safePoint?: string;
}

const EVERYTHING: WatchedChange['links'] = { links: 'all', clients: 'all' };

/**
 * How this pod learns that rows changed, without asking the writers for anything: it reads the
 * feeds' tails — the links of the rows stamped between the last safe point it saw and the one
 * now — every WATCH_EVERY_MS while polls wait, and tells them (docs/operations.md, "Change
 * feeds"). Two statements a tick on a pooled connection to the primary, each within
 * DATABASE_TIMEOUT_MS: a database that stops answering fails the tick. While its reads fail the
 * gauge says 0 and every waiting poll re-checks on its own once a RETRY_EVERY_MS; the first
 * read that succeeds again wakes them all, since anything may have changed meanwhile.
 */
@Injectable()
export class ChangeWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeWatcher.name);
  private readonly listeners = new Set<(change: WatchedChange) => void>();
  private readonly up: Gauge;
  /** Known once a read has succeeded. */
  private recent?: RecentChanges;
  private isActive = false;
  private isFailing = false;
  private isStopped = false;
  private timer?: NodeJS.Timeout;
  private dueAt = Infinity;
  private ticking?: Promise<void>;

  constructor(
    private readonly repository: ChangesRepository,
    registry: Registry,
  ) {
    this.up = new Gauge({
      name: 'change_feed_watcher_up',
      help: '1 while this pod reads the change feeds tails (waiting polls are woken by it), else 0',
      registers: [registry],
    });
    this.up.set(0);
  }

  /** Whether a read has succeeded and none has failed since. */
  get isWatching(): boolean {
    return this.recent !== undefined && !this.isFailing;
  }

  /** Calls `listener` with each change read, and for each re-check; returns what stops it. */
  subscribe(listener: (change: WatchedChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Polls wait (read often) or none does (a heartbeat). */
  setActive(isActive: boolean): void {
    if (this.isActive === isActive) return;
    this.isActive = isActive;
    if (isActive) this.schedule(WATCH_EVERY_MS);
  }

  /**
   * Whether a change made since `readUpTo` (a safe point a poll read up to) may concern polls
   * of `feed` limited to `links`: true when the watcher cannot tell.
   */
  hasChangedSince(readUpTo: string, feed: Feed, links?: ReadonlySet<string>): boolean {
    return this.recent?.hasSince(readUpTo, feed, links) ?? true;
  }

  /** Where the watcher has read up to (a safe point), once it has. */
  get position(): string | undefined {
    return this.recent?.position;
  }

  /** The first read before the pod serves; should it fail, it is retried. */
  async onApplicationBootstrap(): Promise<void> {
    await this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.isStopped = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(inMs: number): void {
    if (this.isStopped || this.ticking) return;
    const at = Date.now() + inMs;
    if (at >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => void this.tick(), inMs).unref();
  }

  private async tick(): Promise<void> {
    this.dueAt = Infinity;
    this.ticking = this.read();
    await this.ticking;
    this.ticking = undefined;
    if (this.isFailing) this.schedule(this.isActive ? RETRY_EVERY_MS : IDLE_EVERY_MS);
    else this.schedule(this.isActive ? WATCH_EVERY_MS : IDLE_EVERY_MS);
  }

  private async read(): Promise<void> {
    try {
      const to = await this.repository.safePoint();
      const recent = (this.recent ??= new RecentChanges(to));
      let change: WatchedChange | undefined;
      if (to > recent.position) {
        // Nobody waits: nobody to wake, so the rows are not read (the span counts as all).
        const links = this.isActive
          ? await this.repository.changedLinks(recent.position, to)
          : EVERYTHING;
        recent.record(to, links);
        change = { links, safePoint: to };
      }
      if (this.isFailing) {
        this.logger.log('reading the change feeds again; waiting polls re-read');
        change = { links: EVERYTHING, safePoint: to };
      }
      this.isFailing = false;
      this.up.set(1);
      if (change) this.tell(change);
    } catch (error) {
      if (!this.isFailing) {
        this.logger.warn(
          `cannot read the change feeds (${(error as Error).message}); ` +
            `waiting polls re-check every ${RETRY_EVERY_MS} ms until it can`,
        );
      }
      this.isFailing = true;
      this.up.set(0);
      this.tell({ links: EVERYTHING });
    }
  }

  private tell(change: WatchedChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
