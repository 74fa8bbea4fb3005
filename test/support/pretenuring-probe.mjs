// Loaded into a process (NODE_OPTIONS=--import) to tell whether V8 pretenures objects made per
// request: on SIGUSR2 it serves 320,000 simulated requests, 32 at a time, each making a short-
// lived object that gets a closure assigned after it was made (as passport's strategy does), and
// prints `full collections: N` on stderr. With pretenuring those objects land in the old
// generation and keep their request's 16 KB alive until a full collection: dozens to hundreds
// of full collections; without, next to none.
import { constants, PerformanceObserver } from 'node:perf_hooks';

function request(id) {
  const body = new Array(2000).fill(id);
  return new Promise((resolve) => {
    const actions = { success: () => resolve(body.length) };
    actions.fail = () => resolve(0);
    setImmediate(() => actions.success());
  });
}

export async function countFullCollections() {
  let full = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  for (let round = 0; round < 10000; round++) {
    await Promise.all(Array.from({ length: 32 }, (_, id) => request(id)));
  }
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  return full;
}

process.on('SIGUSR2', () => {
  void countFullCollections().then((full) => process.stderr.write(`full collections: ${full}\n`));
});
