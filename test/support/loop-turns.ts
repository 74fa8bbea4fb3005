/**
 * Counts the turns of the event loop (one immediate a turn) until stopped: `turn()` is the one
 * running now, so that what a test records with it tells which of its events shared a turn.
 */
export function countLoopTurns(): { turn: () => number; stop: () => void } {
  let turn = 0;
  let isCounting = true;
  const count = () => {
    turn++;
    if (isCounting) setImmediate(count);
  };
  setImmediate(count);
  return { turn: () => turn, stop: () => (isCounting = false) };
}

/** How many of `turns` are each turn's: [3, 3, 1] for [1, 1, 1, 2, 2, 2, 5]. */
export const perTurn = (turns: number[]): number[] =>
  [...new Set(turns)].map((turn) => turns.filter((t) => t === turn).length);
