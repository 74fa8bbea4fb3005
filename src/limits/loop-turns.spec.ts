import { countLoopTurns, perTurn } from '../../test/support/loop-turns';
import { LoopTurns } from './loop-turns';

/** The turn of the event loop each caller resumed in. */
async function turnsOfTakers(turns: LoopTurns, keys: string[]): Promise<Map<string, number[]>> {
  const loop = countLoopTurns();
  const resumedIn = new Map<string, number[]>();
  await Promise.all(
    keys.map(async (key) => {
      await turns.take(key);
      resumedIn.set(key, [...(resumedIn.get(key) ?? []), loop.turn()]);
    }),
  );
  loop.stop();
  return resumedIn;
}

describe('LoopTurns', () => {
  it('lets through at most its batch in a turn, and every caller in the end', async () => {
    const resumedIn = await turnsOfTakers(new LoopTurns(8), Array(100).fill('a'));
    expect(perTurn(resumedIn.get('a')!)).toEqual([...Array(12).fill(8), 4]);
  });

  it("takes keys in rotation: one key's many do not hold another's few behind them", async () => {
    const keys = [...Array(40).fill('busy'), 'quiet', 'quiet'];
    const resumedIn = await turnsOfTakers(new LoopTurns(4), keys);
    const [first, second] = resumedIn.get('quiet')!;
    // Both within the first turn: two each.
    expect(second).toBe(first);
    expect(resumedIn.get('busy')!.filter((turn) => turn === first)).toHaveLength(2);
    expect(resumedIn.get('busy')!).toHaveLength(40);
  });

  it('resumes a lone caller in the next turn, not in the same one', async () => {
    const turns = new LoopTurns(8);
    let hasResumed = false;
    const taken = turns.take('a').then(() => (hasResumed = true));
    await Promise.resolve();
    expect(hasResumed).toBe(false);
    await taken;
    expect(hasResumed).toBe(true);
  });
});
