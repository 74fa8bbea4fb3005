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

  it('renders one list at a time: a call that read another content waits for the render in flight', async () => {
    const { cache, table, calls, holdRenders, finishRender } = setUp(10);
    table.body = 'a body too long to keep';
    await cache.get();
    holdRenders();
    const older = cache.get();
    await tick();
    Object.assign(table, { content: 'c2' });
    const newer = cache.get();
    await tick();
    expect(calls.renders).toBe(2);
    finishRender();
    expect((await older).content).toBe('c1');
    await tick();
    expect(calls.renders).toBe(3);
    finishRender();
    expect((await newer).content).toBe('c2');
  });

  it('keeps nothing of a failed render: the next call renders again', async () => {
    const { cache, calls, failNextRender } = setUp();
    failNextRender();
    await expect(cache.get()).rejects.toThrow('batch failed');
    expect(textOf(await cache.get())).toBe('body-1');
    expect(calls.renders).toBe(2);
  });

  it('does not keep a body longer than its bound, but shares its render among the calls that read its content', async () => {
    const { cache, table, calls, holdRenders, finishRender } = setUp(6);
    table.body = 'a body too long';
    await cache.get();
    holdRenders();
    const together = [cache.get(), cache.get(), cache.get()];
    await tick();
    finishRender();
    const lists = await Promise.all(together);
    expect(lists.every((list) => list === lists[0])).toBe(true);
    expect(calls).toEqual({ contentReads: 4, renders: 2 });

    // Short again: kept again.
    table.body = 'short';
    const next = cache.get();
    await tick();
    finishRender();
    await next;
    expect(textOf(await cache.get())).toBe('short');
    expect(calls).toEqual({ contentReads: 6, renders: 3 });
  });
});
