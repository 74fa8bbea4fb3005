import { MEMORY_ALERT_SHARE } from '../metrics/memory-limit';

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
const REMEDY =
  'give the pods more memory, or lower MAX_WAITING_POLLS and run more pods (docs/performance.md, Memory)';

/**
 * The V8 heap one waiting long poll holds: its connection's, request's and response's objects,
 * the framework's and the API's (heap snapshots with 4,000 polls waiting: 14.2 KB each). Node's
 * HTTP parser, 10 KB more per connection, is native memory outside the heap.
 */
export const HEAP_PER_WAITING_POLL = 14 * 1024;

/**
 * A warning when MAX_WAITING_POLLS, all waiting, would fill over a third of the V8 heap limit.
 * Beside what the API holds at rest (~45 MB), they then leave the heap little room, and V8
 * collects it whole several times a second, each pause holding every request (5,000 polls in a
 * 256Mi pod: 2.7 full collections a second, 44 ms each on average).
 */
export function waitingPollsHeapWarning(
  maxWaitingPolls: number,
  heapLimitBytes: number,
): string | undefined {
  const heldBytes = maxWaitingPolls * HEAP_PER_WAITING_POLL;
  if (heldBytes <= heapLimitBytes / 3) return undefined;
  return (
    `MAX_WAITING_POLLS=${maxWaitingPolls}: that many waiting long polls hold ~${mib(heldBytes)} MB ` +
    `of heap, over a third of the V8 heap limit (${mib(heapLimitBytes)} MB), and full garbage ` +
    `collections would pause every request several times a second: ${REMEDY}`
  );
}

/**
 * The resident memory a waiting long poll adds, at its peak, while changes wake it: its heap, its
 * connection's native memory and its answers in flight. 37 KiB a poll over the process at rest
 * with 2,500 polls woken every second in a 256Mi pod, 33–34 KiB with 3,500 (256Mi) and 5,000 (384Mi).
 */
export const PEAK_RSS_PER_WAITING_POLL = 37 * 1024;

/**
 * A warning when MAX_WAITING_POLLS, all waiting and woken by changes, would take the process
 * past the memory alert's line (a 256Mi pod holds ~2,600); undefined without a memory limit.
 */
export function waitingPollsMemoryWarning(
  maxWaitingPolls: number,
  memoryLimitBytes: number | undefined,
  restingRssBytes: number,
): string | undefined {
  if (memoryLimitBytes === undefined) return undefined;
  const peakBytes = restingRssBytes + maxWaitingPolls * PEAK_RSS_PER_WAITING_POLL;
  if (peakBytes <= memoryLimitBytes * MEMORY_ALERT_SHARE) return undefined;
  return (
    `MAX_WAITING_POLLS=${maxWaitingPolls}: that many waiting long polls, woken by changes, would ` +
    `take this process to ~${mib(peakBytes)} MiB resident, over ${MEMORY_ALERT_SHARE * 100} % of ` +
    `its memory limit (${mib(memoryLimitBytes)} MiB), the memory alert's line: ${REMEDY}`
  );
}
