import { PrecompressedBody } from '../http/precompressed-body';
import { RenderedList, RenderedListCache } from './rendered-list.cache';

/** The text of a list's body, which these tests make a PrecompressedBody. */
const textOf = ({ body }: RenderedList) => String((body as PrecompressedBody).identity);

/** Lets every pending promise and timer of the cache move on. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A table whose content the test sets, and a renderer that counts its renders. */
function setUp(maxLength = 100) {
  const table = { content: 'c1', body: 'body-1' };
  const calls = { contentReads: 0, renders: 0 };
  let holding = false;
  const held: (() => void)[] = [];
  let failNext = false;
  const render = async (): Promise<RenderedList> => {
    calls.renders++;
    const { content, body } = table;
    if (holding) await new Promise<void>((resolve) => held.push(resolve));
    else await Promise.resolve();
    if (failNext) {
      failNext = false;
      throw new Error('batch failed');
    }
    return { body: new PrecompressedBody(Buffer.from(body)), etag: `etag of ${body}`, content };
  };
  const readContent = async () => {
    calls.contentReads++;
    return table.content;
  };
  const cache = new RenderedListCache(readContent, render, maxLength);
  return {
    cache,
    table,
    calls,
    /** Makes renders wait for `finishRender` from now on. */
    holdRenders: () => (holding = true),
    /** Finishes the oldest render still held, or the one at `index` among them. */
    finishRender: (index = 0) => held.splice(index, 1)[0]?.(),
    failNextRender: () => (failNext = true),
  };
}

describe('RenderedListCache', () => {
  it('serves the list it kept while the content is unchanged, reading the content each time', async () => {
    const { cache, calls } = setUp();
    const first = await cache.get();
    expect(await cache.get()).toBe(first);
    expect(await cache.get()).toBe(first);
    expect(calls).toEqual({ contentReads: 3, renders: 1 });
  });

  it('renders again once the content changed, and keeps the new list', async () => {
    const { cache, table, calls } = setUp();
    await cache.get();
    Object.assign(table, { content: 'c2', body: 'body-2' });
    expect(textOf(await cache.get())).toBe('body-2');
    expect(textOf(await cache.get())).toBe('body-2');
    expect(calls.renders).toBe(2);
  });

  it('gives concurrent callers reading the same content one render', async () => {
    const { cache, calls } = setUp();
    const lists = await Promise.all(Array.from({ length: 5 }, () => cache.get()));
    expect(new Set(lists).size).toBe(1);
    expect(calls.renders).toBe(1);
  });

  it('gives callers a render in flight only if it is of the content they read, else one new render', async () => {
    const { cache, table, calls, holdRenders, finishRender } = setUp();
    holdRenders();
    const early = cache.get();
    await tick();
    // The table changes while the first render is under way; later callers read the change.
    Object.assign(table, { content: 'c2', body: 'body-2' });
    const late = Array.from({ length: 4 }, () => cache.get());
    await tick();
    finishRender();
    await tick();
    finishRender();
    const bodies = (await Promise.all(late)).map(textOf);
    expect(bodies).toEqual(['body-2', 'body-2', 'body-2', 'body-2']);
    expect(textOf(await early)).toBe('body-1');
    expect(calls.renders).toBe(2);
  });

  it('gives callers that waited for a failed render one new render', async () => {
    const { cache, table, calls, holdRenders, finishRender, failNextRender } = setUp();
    await cache.get();
    table.content = 'c2';
    holdRenders();
    failNextRender();
    const first = cache.get();
    await tick();
    const others = Array.from({ length: 3 }, () => cache.get());
    await tick();
    finishRender();
    await expect(first).rejects.toThrow('batch failed');
    await tick();
    finishRender();
    expect((await Promise.all(others)).map(({ content }) => content)).toEqual(['c2', 'c2', 'c2']);
    expect(calls.renders).toBe(3);
  });

  it('does not let a render that finished after a later one started undo it', async () => {
    // Too long to keep, so every call renders its own: two renders can overlap.
    const { cache, table, calls, holdRenders, finishRender } = setUp(10);
    table.body = 'a body too long to keep';
    holdRenders();
    const first = cache.get();
    await tick();
    finishRender();
    await first;

    const older = cache.get();
    Object.assign(table, { content: 'c2', body: 'short' });
    const newer = cache.get();
    finishRender(1);
    await newer;
    finishRender();
    await older;

    // The later render, short enough to keep, is what the next call finds (a render it
    // started instead would be let finish here, and counted).
    const next = cache.get();
    await tick();
    finishRender();
    expect((await next).content).toBe('c2');
    expect(calls.renders).toBe(3);
  });

  it('keeps nothing of a failed render: the next call renders again', async () => {
    const { cache, calls, failNextRender } = setUp();
    failNextRender();
    await expect(cache.get()).rejects.toThrow('batch failed');
    expect(textOf(await cache.get())).toBe('body-1');
    expect(calls.renders).toBe(2);
  });

  it('does not keep a body longer than its bound, nor read the content while the last was', async () => {
    const { cache, table, calls } = setUp(6);
    table.body = 'a body too long';
    await cache.get();
    await cache.get();
    expect(calls).toEqual({ contentReads: 1, renders: 2 });

    // Short again: kept again.
    table.body = 'short';
    await cache.get();
    expect(textOf(await cache.get())).toBe('short');
    expect(calls).toEqual({ contentReads: 2, renders: 3 });
  });
});
