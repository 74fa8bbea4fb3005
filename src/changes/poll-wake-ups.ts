import { SAFE_POINT_MARGIN_MS } from './changes.repository';

/** Why a waiting poll reads again: a notified change, or a re-check without one. */
export type WakeCause = 'notification' | 'interval';

/**
 * A notified change shows in the feed once the safe point has passed it: the margin after its
 * commit, unless an older writer holds the feed back.
 */
const SETTLE_MS = SAFE_POINT_MARGIN_MS + 10;
/** The re-check interval while notifications are off or down; the longest back-off. */
export const RECHECK_MS = 1000;

/**
 * When one waiting poll reads its feed again (docs/api.md "Change feeds"): once at the start,
 * for a change committed just before the poll began to wait; then after each notification of
 * its feed's table, once the safe point may have passed it; while an older writer holds the
 * feed back, again and again with back-off (the change may show once it commits); and every
 * RECHECK_MS while no notification can come. next() resolves undefined once end() is called.
 */
export class PollWakeUps {
  private dueAt = Infinity;
  private cause: WakeCause = 'interval';
  /** When the latest notified change may show in the feed, and when the latest read began. */
  private settlesAt = 0;
  private readAt = 0;
  private backOffMs = SETTLE_MS;
  private timer?: NodeJS.Timeout;
  private wake?: (cause: WakeCause | undefined) => void;
  private isEnded = false;

  constructor(private readonly isListening: () => boolean) {
    this.schedule(SETTLE_MS, 'interval');
  }

  /** A change to the feed's table was notified (or may have been missed). */
  notified(): void {
    this.settlesAt = Date.now() + SETTLE_MS;
    this.schedule(SETTLE_MS, 'notification');
  }

  /** A read found nothing; `isHeldBack`: an open writer held the safe point back. */
  foundNothing(isHeldBack: boolean): void {
    // A change notified too late for the read that just ran: read again once it may show.
    if (this.settlesAt > this.readAt) {
      this.schedule(Math.max(0, this.settlesAt - Date.now()), 'notification');
    }
    if (isHeldBack) {
      this.backOffMs = Math.min(this.backOffMs * 2, RECHECK_MS);
      this.schedule(this.backOffMs, 'interval');
    } else {
      this.backOffMs = SETTLE_MS;
    }
    if (!this.isListening()) this.schedule(RECHECK_MS, 'interval');
  }

  /** Why to read next, once it is time; undefined once ended. */
  next(): Promise<WakeCause | undefined> {
    if (this.isEnded) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.wake = resolve;
      this.arm();
    });
  }

  end(): void {
    this.isEnded = true;
    clearTimeout(this.timer);
    this.wake?.(undefined);
    this.wake = undefined;
  }

  /** Reads in `inMs` unless a read is due sooner. */
  private schedule(inMs: number, cause: WakeCause): void {
    const at = Date.now() + inMs;
    if (at >= this.dueAt) return;
    this.dueAt = at;
    this.cause = cause;
    if (this.wake) this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.dueAt === Infinity) return;
    this.timer = setTimeout(
      () => {
        const wake = this.wake;
        this.wake = undefined;
        this.dueAt = Infinity;
        this.readAt = Date.now();
        wake?.(this.cause);
      },
      Math.max(0, this.dueAt - Date.now()),
    );
  }
}
