import { NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createSuiteDatabase,
  databaseReader,
  dropSuiteDatabase,
} from '../../test/support/database';
import { insertLinks } from '../../test/support/fixtures';
import { renderLink, renderLinksList } from './link.renderer';
import { LinksRepository } from './links.repository';
import { LINKS_BATCH_SIZE, LinksService } from './links.service';

async function readJson(json: string) {
  return JSON.parse(json) as { data: { id: string }[]; meta: unknown };
}

describe('LinksService', () => {
  let dataSource: DataSource;
  let service: LinksService;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    service = new LinksService(new LinksRepository(databaseReader(dataSource)));
    await insertLinks(dataSource, [
      { id: 'b', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-03T00:00:00Z' },
      { id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' },
      { id: 'early', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' },
    ]);
  });
  afterAll(() => dropSuiteDatabase(dataSource));

  it('lists by createdAt then id, with the total', async () => {
    const list = await readJson(await renderLinksList(service.batches()));
    expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b']);
    expect(list.meta).toEqual({ total: 3 });
  });

  it('streams more links than one batch, in order, across ties at the batch boundary', async () => {
    const extra = LINKS_BATCH_SIZE * 2 + 1;
    await dataSource.query(
      `INSERT INTO links (id, created_at, updated_at)
       SELECT 'bulk-' || i, timestamptz '2026-06-01', timestamptz '2026-06-01'
       FROM generate_series(1, $1) AS i`,
      [extra],
    );
    try {
      const list = await readJson(await renderLinksList(service.batches()));
      const bulk = Array.from({ length: extra }, (_, i) => `bulk-${i + 1}`).sort((x, y) =>
        Buffer.compare(Buffer.from(x), Buffer.from(y)),
      );
      expect(list.meta).toEqual({ total: extra + 3 });
      expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b', ...bulk]);
    } finally {
      await dataSource.query(`DELETE FROM links WHERE id LIKE 'bulk-%'`);
    }
  });

  it('finds one and maps it', async () => {
    expect(JSON.parse(renderLink(await service.findOne('a')))).toEqual({
      id: 'a',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  it.each(['nope', 'a\u0000'])('throws NotFoundException for %j', async (id) => {
    await expect(service.findOne(id)).rejects.toBeInstanceOf(NotFoundException);
  });
});
