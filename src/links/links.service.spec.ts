import { NotFoundException } from '@nestjs/common';
import etag from 'etag';
import { ChunkedBody } from '../http/chunked-body';
import { PrecompressedBody } from '../http/precompressed-body';
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

async function readJson(body: ChunkedBody | Buffer) {
  const text = Buffer.isBuffer(body) ? body : Buffer.concat(body.chunks);
  return JSON.parse(text.toString()) as { data: { id: string }[]; meta: unknown };
}

describe('LinksService', () => {
  let dataSource: DataSource;
  let service: LinksService;
  let repository: LinksRepository;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    repository = new LinksRepository(databaseReader(dataSource));
    service = new LinksService(repository);
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
  const rendered = () => repository.inOneSnapshot((read) => renderLinksList(service.batches(read)));

  it('lists by createdAt then id, with the total', async () => {
    const list = await readJson(await rendered());
    expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b']);
    expect(list.meta).toEqual({ total: 3 });
  });

  it('streams more links than one batch, in order, across ties at the batch boundary', async () => {
    const extra = LINKS_BATCH_SIZE * 2 + 1;
    await insertBulk(extra);
    try {
      const list = await readJson(await rendered());
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
      const list = await readJson(
        await repository.inOneSnapshot((read) =>
          renderLinksList(
            service.batches(async (size, after) => {
              const rows = await read(size, after);
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

  describe('listAll', () => {
    // Lists this short are kept whole.
    const listed = async () =>
      readJson(((await service.listAll()).body as PrecompressedBody).identity);
    const ids = async () => (await listed()).data.map((l) => l.id);

    it('answers the rendered list with the ETag Express would give its body', async () => {
      const list = await service.listAll();
      const { identity } = list.body as PrecompressedBody;
      expect(identity).toEqual(Buffer.concat((await rendered()).chunks));
      expect(list.etag).toBe(etag(identity, { weak: true }));
    });

    it('serves the list it rendered again, without reading the rows, while the table is unchanged', async () => {
      const first = await service.listAll();
      const read = jest.spyOn(repository, 'inOneSnapshot');
      expect(await service.listAll()).toBe(first);
      expect(read).not.toHaveBeenCalled();
    });

    it('shows every insert, update and hard delete in the next list', async () => {
      await service.listAll();
      await dataSource.query(
        `INSERT INTO links (id, created_at, updated_at) VALUES ('new', '2027-01-01', now())`,
      );
      expect(await ids()).toEqual(['early', 'a', 'b', 'new']);
      const updatedAt = async () => (await listed()).data.find((l) => l.id === 'new');
      const before = await updatedAt();
      await dataSource.query(`UPDATE links SET id = id WHERE id = 'new'`);
      expect(await updatedAt()).not.toEqual(before);
      await dataSource.query(`UPDATE links SET created_at = '2024-01-01' WHERE id = 'new'`);
      expect(await ids()).toEqual(['new', 'early', 'a', 'b']);
      await dataSource.query(`DELETE FROM links WHERE id = 'new'`);
      expect(await ids()).toEqual(['early', 'a', 'b']);
    });

    it('never serves again a list made while the table changed and changed back', async () => {
      await dataSource.query(`INSERT INTO links (id) VALUES ('x')`);
      // A row comes in after the list was asked for, before its rows are read, and is gone
      // again once it has been made: the table's content is what it was when the list was
      // asked for, the list's is not.
      const inOneSnapshot = repository.inOneSnapshot.bind(repository);
      jest.spyOn(repository, 'inOneSnapshot').mockImplementationOnce(async (read) => {
        await dataSource.query(`INSERT INTO links (id) VALUES ('passing')`);
        return inOneSnapshot(read);
      });
      expect(await ids()).toEqual(['early', 'a', 'b', 'x', 'passing']);
      await dataSource.query(`DELETE FROM links WHERE id = 'passing'`);
      expect(await ids()).toEqual(['early', 'a', 'b', 'x']);
      await dataSource.query(`DELETE FROM links WHERE id = 'x'`);
    });
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
