import { NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createSuiteDatabase,
  databaseReader,
  dropSuiteDatabase,
} from '../../test/support/database';
import { insertLinks } from '../../test/support/fixtures';
import { workLimits } from '../../test/support/work-limits';
import { ListPiece, renderLink, renderLinksList } from './link.renderer';
import { LinksRepository } from './links.repository';
import { LINKS_BATCH_SIZE, LinksService } from './links.service';

async function readJson(pieces: AsyncIterable<ListPiece>) {
  let text = '';
  for await (const { text: piece } of pieces) text += piece;
  return JSON.parse(text) as { data: { id: string }[]; meta: unknown };
}

describe('LinksService', () => {
  let dataSource: DataSource;
  let service: LinksService;
  let repository: LinksRepository;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    repository = new LinksRepository(databaseReader(dataSource));
    service = new LinksService(repository, workLimits());
    await insertLinks(dataSource, [
      { id: 'b', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-03T00:00:00Z' },
      { id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' },
      { id: 'early', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' },
    ]);
  });
  afterAll(() => dropSuiteDatabase(dataSource));
  afterEach(() => jest.restoreAllMocks());

  /** `bulk-1`…`bulk-<count>`, all created at one instant (removed by each test that adds them). */
  const insertBulk = (count: number) =>
    dataSource.query(
      `INSERT INTO links (id, created_at, updated_at)
       SELECT 'bulk-' || i, timestamptz '2026-06-01', timestamptz '2026-06-01'
       FROM generate_series(1, $1) AS i`,
      [count],
    );
  const rendered = () =>
    repository.inOneSnapshot((snapshot) =>
      readJson(renderLinksList(service.batches(snapshot.batch))),
    );

  it('lists by createdAt then id, with the total', async () => {
    const list = await rendered();
    expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b']);
    expect(list.meta).toEqual({ total: 3 });
  });

  it('streams more links than one batch, in order, across ties at the batch boundary', async () => {
    const extra = LINKS_BATCH_SIZE * 2 + 1;
    await insertBulk(extra);
    try {
      const list = await rendered();
      const bulk = Array.from({ length: extra }, (_, i) => `bulk-${i + 1}`).sort((x, y) =>
        Buffer.compare(Buffer.from(x), Buffer.from(y)),
      );
      expect(list.meta).toEqual({ total: extra + 3 });
      expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b', ...bulk]);
    } finally {
      await dataSource.query(`DELETE FROM links WHERE id LIKE 'bulk-%'`);
    }
  });

  it('reads its batches from one snapshot: a link moved while they are read is listed once', async () => {
    await insertBulk(LINKS_BATCH_SIZE);
    try {
      // Once the first batch (which holds 'early') is read, 'early' moves past the batches to come.
      const list = await repository.inOneSnapshot((snapshot) =>
        readJson(
          renderLinksList(
            service.batches(async (size, after) => {
              const rows = await snapshot.batch(size, after);
              if (!after)
                await dataSource.query(
                  `UPDATE links SET created_at = '2030-01-01' WHERE id = 'early'`,
                );
              return rows;
            }),
          ),
        ),
      );
      const ids = list.data.map((l) => l.id);
      expect(ids.filter((id) => id === 'early')).toEqual(['early']);
      expect(list.meta).toEqual({ total: LINKS_BATCH_SIZE + 3 });
    } finally {
      await dataSource.query(`DELETE FROM links WHERE id LIKE 'bulk-%'`);
      await dataSource.query(`UPDATE links SET created_at = '2025-01-01' WHERE id = 'early'`);
    }
  });

  it('finds one and maps it', async () => {
    expect(JSON.parse(renderLink(await service.findOne('a', { keyId: 'spec-key' })))).toEqual({
      id: 'a',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  it.each(['nope', 'a\u0000'])('throws NotFoundException for %j', async (id) => {
    await expect(service.findOne(id, { keyId: 'spec-key' })).rejects.toBeInstanceOf(
      NotFoundException,
    );
  });
});
