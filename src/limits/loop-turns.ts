const COMPACT_PAST = 1024;

interface Queue {
  waiting: Array<() => void>;
  /** The first still waiting (shift() copies a long array each time). */
  next: number;
}

/**
 * Work let through a few at a time, one batch per turn of the event loop, keys in rotation: the
 * thousands of long polls one change answers resume `perTurn` per turn, with timers and new
 * connections served between two batches, and a key with many waiting cannot hold another's
 * behind all of its own.
 */
export class LoopTurns {
  /** Callers waiting for their turn, by key; keys in the order they are next served. */
  private readonly queues = new Map<string, Queue>();
  private isScheduled = false;

  constructor(private readonly perTurn: number) {}

  /** Resolves in a later turn of the event loop, once `key`'s turn comes. */
  take(key: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.queues.get(key);
      if (queue) queue.waiting.push(resolve);
      else this.queues.set(key, { waiting: [resolve], next: 0 });
      if (!this.isScheduled) this.schedule();
    });
  }

  private schedule(): void {
    this.isScheduled = true;
    setImmediate(() => this.letThrough());
  }

  private letThrough(): void {
    for (let left = this.perTurn; left > 0 && this.queues.size > 0; left--) {
      const [key, queue] = this.queues.entries().next().value as [string, Queue];
      this.queues.delete(key);
      queue.waiting[queue.next++]();
      if (queue.next === queue.waiting.length) continue;
      // A key never drained must not keep every caller it ever had.
      if (queue.next >= COMPACT_PAST && queue.next * 2 >= queue.waiting.length) {
        queue.waiting = queue.waiting.slice(queue.next);
        queue.next = 0;
      }
      this.queues.set(key, queue);
    }
    this.isScheduled = false;
    if (this.queues.size > 0) this.schedule();
  }
}
