import { LinkRow } from './links.repository';
import { ListPiece, renderLink, renderLinksList } from './link.renderer';

const textOf = async (pieces: AsyncIterable<ListPiece>) => {
  let text = '';
  for await (const { text: piece } of pieces) text += piece;
  return text;
};

describe('renderLink', () => {
  it('renders the contract fields in order, the id escaped as JSON', () => {
    const id = 'a"b\\c\u0001 é 🙂';
    const text = renderLink({
      id,
      createdAt: '"2026-01-02T03:04:05"',
      updatedAt: '"2026-01-02T03:04:06.5"',
    });
    expect(JSON.parse(text)).toEqual({
      id,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:06.500Z',
    });
    expect(Object.keys(JSON.parse(text))).toEqual(['id', 'createdAt', 'updatedAt']);
  });
});

describe('renderLinksList', () => {
  const link = (id: string): LinkRow => ({
    id,
    createdAt: '"2026-01-02T03:04:05"',
    updatedAt: '"2026-01-02T03:04:05"',
  });
  async function* batchesOf(...batches: LinkRow[][]) {
    yield* batches;
  }

  it('joins the batches into one body with the total, an empty last batch included', async () => {
    const body = await textOf(renderLinksList(batchesOf([link('a'), link('b')], [link('c')], [])));
    const list = JSON.parse(body);
    expect(list.data.map((l: LinkRow) => l.id)).toEqual(['a', 'b', 'c']);
    expect(list.meta).toEqual({ total: 3 });
    expect(await textOf(renderLinksList(batchesOf([])))).toBe('{"data":[],"meta":{"total":0}}');
    expect(await textOf(renderLinksList(batchesOf([], [link('a')], [])))).toBe(
      JSON.stringify({ data: [JSON.parse(renderLink(link('a')))], meta: { total: 1 } }),
    );
  });

  it('renders each batch before the next is read, so no batch outlives its turn', async () => {
    const rendered: string[] = [];
    const watched = (id: string): LinkRow => ({
      ...link(id),
      get createdAt() {
        rendered.push(id);
        return '"2026-01-02T03:04:05"';
      },
    });
    const readBefore: string[][] = [];
    async function* batches() {
      yield [watched('a')];
      readBefore.push([...rendered]);
      yield [watched('b')];
    }
    await textOf(renderLinksList(batches()));
    expect(readBefore).toEqual([['a']]);
  });

  it('names after each piece where the rest goes on, and renders that rest alone', async () => {
    const pieces: ListPiece[] = [];
    for await (const piece of renderLinksList(batchesOf([link('a'), link('b')], [link('c')]))) {
      pieces.push(piece);
    }
    expect(pieces.map(({ next }) => next)).toEqual([
      { total: 0 },
      { last: link('b'), total: 2 },
      { last: link('c'), total: 3 },
      { last: link('c'), total: 3, isEnded: true },
    ]);
    const whole = pieces.map(({ text }) => text).join('');
    for (const [i, { next }] of pieces.slice(0, -1).entries()) {
      const rest = batchesOf(...[[link('a'), link('b')], [link('c')]].slice(i));
      const head = pieces
        .slice(0, i + 1)
        .map(({ text }) => text)
        .join('');
      expect(head + (await textOf(renderLinksList(rest, next)))).toBe(whole);
    }
  });
});
