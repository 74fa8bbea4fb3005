import { HEAP_PER_WAITING_POLL, waitingPollsHeapWarning } from './waiting-polls-heap';

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
