import {
  HEAP_PER_WAITING_POLL,
  waitingPollsHeapWarning,
  waitingPollsMemoryWarning,
} from './waiting-polls-memory';

const MiB = 2 ** 20;
// The V8 heap limit a 256Mi pod starts with under the image's options, and a 512Mi pod's.
const POD_256 = 152 * MiB;
const POD_512 = 280 * MiB;

describe('waitingPollsHeapWarning', () => {
  it.each([
    [1000, '256Mi', POD_256],
    [3000, '256Mi', POD_256],
    [5000, '512Mi', POD_512],
  ])('is silent for %p waiting polls in a %s pod', (polls, _pod, limit) => {
    expect(waitingPollsHeapWarning(polls, limit)).toBeUndefined();
  });

  it('warns, with the figures, when the waiting polls would fill over a third of the heap', () => {
    expect(waitingPollsHeapWarning(5000, POD_256)).toBe(
      'MAX_WAITING_POLLS=5000: that many waiting long polls hold ~68 MB of heap, over a third ' +
        'of the V8 heap limit (152 MB), and full garbage collections would pause every request ' +
        'several times a second: give the pods more memory, or lower MAX_WAITING_POLLS and run ' +
        'more pods (docs/performance.md, Memory)',
    );
  });

  it('draws the line at a third of the limit', () => {
    const atThird = Math.floor(POD_256 / 3 / HEAP_PER_WAITING_POLL);
    expect(waitingPollsHeapWarning(atThird, POD_256)).toBeUndefined();
    expect(waitingPollsHeapWarning(atThird + 1, POD_256)).toMatch(/^MAX_WAITING_POLLS=/);
  });
});

describe('waitingPollsMemoryWarning', () => {
  // The server's RSS once started and serving, before any poll waits (bench/long-poll.mjs).
  const RESTING = 136 * MiB;

  it.each([
    [1000, '256Mi', 256 * MiB],
    // Measured: 2,500 polls woken every second peaked at 225.9 MiB in a 256Mi pod…
    [2500, '256Mi', 256 * MiB],
    // …and 5,000 at 303 MiB in a 384Mi pod.
    [5000, '384Mi', 384 * MiB],
  ])('is silent for %p waiting polls in a %s pod', (polls, _pod, limit) => {
    expect(waitingPollsMemoryWarning(polls, limit, RESTING)).toBeUndefined();
  });

  it('warns, with the figures, where the heap warning is silent and the memory alert fires', () => {
    // Measured: 3,500 polls peaked at 249.9 MiB, 98 % of a 256Mi pod; 3,000 are checked here.
    expect(waitingPollsHeapWarning(3000, POD_256)).toBeUndefined();
    expect(waitingPollsMemoryWarning(3000, 256 * MiB, RESTING)).toBe(
      'MAX_WAITING_POLLS=3000: that many waiting long polls, woken by changes, would take this ' +
        'process to ~244 MiB resident, over 90 % of its memory limit (256 MiB), the memory ' +
        "alert's line: give the pods more memory, or lower MAX_WAITING_POLLS and run more pods " +
        '(docs/performance.md, Memory)',
    );
  });

  it('draws the line at 90 % of the limit, over what the process holds at start', () => {
    const limit = 256 * MiB;
    // A resting RSS that puts the line exactly at 2,600 polls.
    const resting = 0.9 * limit - 2600 * 37 * 1024;
    expect(waitingPollsMemoryWarning(2600, limit, resting)).toBeUndefined();
    expect(waitingPollsMemoryWarning(2601, limit, resting)).toMatch(/^MAX_WAITING_POLLS=2601:/);
    expect(waitingPollsMemoryWarning(2600, limit, resting + 1)).toMatch(/^MAX_WAITING_POLLS=/);
  });

  it('is silent without a memory limit', () => {
    expect(waitingPollsMemoryWarning(100_000, undefined, RESTING)).toBeUndefined();
  });
});
