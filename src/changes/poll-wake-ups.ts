import { ChangedLinks, Feed } from './changes.repository';
import { concerns } from './recent-changes';

/** Why a waiting poll reads again: a change it may see, or a re-check while nothing watches. */
export type WakeCause = 'change' | 'recheck';

export interface WakeUp {
  cause: WakeCause;
  /** A safe point the change is before, to read up to; undefined: read one first. */
  safePoint?: string;
}

/** The later of two wake-ups: what both need read. */
function merged(earlier: WakeUp, later: WakeUp): WakeUp {
  const cause = earlier.cause === 'change' ? 'change' : later.cause;
  if (earlier.safePoint === undefined || later.safePoint === undefined) return { cause };
  const safePoint = earlier.safePoint > later.safePoint ? earlier.safePoint : later.safePoint;
  return { cause, safePoint };
}

/**
 * One waiting poll: which rows it follows (its feed; on the client feed, its link), how far it
 * has read (a safe point), and the wake-ups told to it, kept while it reads so that none is
 * lost. next() resolves with the next wake-up, or undefined once end() is called.
 */
export class PollWakeUps {
  private pending?: WakeUp;
  private wake?: (wakeUp: WakeUp | undefined) => void;
  private isEnded = false;

  constructor(
    readonly feed: Feed,
    readonly links: ReadonlySet<string> | undefined,
    /** The safe point its latest read reached: rows stamped before it were read. */
    public readUpTo: string,
  ) {}

  /** Wakes the poll when `changed` holds a row of its links it has not read. */
  changed(changed: ChangedLinks, safePoint?: string): void {
    if (!concerns(changed, this.readUpTo, this.links)) return;
    const isRecheck = changed === 'all' && safePoint === undefined;
    this.tell({ cause: isRecheck ? 'recheck' : 'change', safePoint });
  }

  tell(wakeUp: WakeUp): void {
    if (this.isEnded) return;
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake(wakeUp);
    } else {
      this.pending = this.pending ? merged(this.pending, wakeUp) : wakeUp;
    }
  }

  next(): Promise<WakeUp | undefined> {
    if (this.isEnded) return Promise.resolve(undefined);
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      return Promise.resolve(pending);
    }
    return new Promise((resolve) => (this.wake = resolve));
  }

  end(): void {
    this.isEnded = true;
    this.wake?.(undefined);
    this.wake = undefined;
  }
}
