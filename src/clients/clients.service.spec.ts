import { NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createSuiteDatabase,
  databaseReader,
  dropSuiteDatabase,
} from '../../test/support/database';
import { insertClients, insertLinks } from '../../test/support/fixtures';
import { CountCache } from './count-cache';
import { LimitsEnv } from '../config/limits.env';
import { workLimits } from '../../test/support/work-limits';
import { DatabaseReader } from '../database/database-reader';
import { Position } from '../database/list-order';
import { CursorCodec } from '../query/signed-cursor';
import { renderClient, renderClientsPage } from './client.renderer';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';
import { ListClientsQuery, listClientsScope } from './dto/list-clients.query';

const query = (fields: Partial<ListClientsQuery> = {}) =>
  Object.assign(new ListClientsQuery(), fields);
const CALLER = { keyId: 'spec-key' };
const listed = async (service: ClientsService, fields: Partial<ListClientsQuery>) =>
  JSON.parse(renderClientsPage(await service.list(query(fields), CALLER)));

// Against the real database: the service is mostly SQL.
const codec = new CursorCodec({ current: 'spec-secret' });

describe('ClientsService', () => {
  let dataSource: DataSource;
  let reader: DatabaseReader;
  let service: ClientsService;
  const serviceWith = (totals: CountCache, limits: Partial<LimitsEnv> = {}) =>
    new ClientsService(
      new ClientsRepository(reader),
      totals,
      codec,
      workLimits(limits),
      Object.assign(new LimitsEnv(), limits),
    );

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    reader = databaseReader(dataSource);
    service = serviceWith(new CountCache(0));
    await insertLinks(dataSource, [{ id: 'l1' }, { id: 'l2' }]);
    await insertClients(dataSource, [
      {
        id: 'c1',
        linkId: 'l1',
        status: 'new',
        createdAt: '2026-01-01T00:00:01Z',
        updatedAt: '2026-01-02T00:00:00Z',
      },
      {
        id: 'c2',
        linkId: 'l1',
        status: 'connected',
        isDeleted: true,
        createdAt: '2026-01-01T00:00:02Z',
      },
      { id: 'c3', linkId: 'l2', status: 'connected', createdAt: '2026-01-01T00:00:03Z' },
    ]);
  });
  afterAll(() => dropSuiteDatabase(dataSource));

  it('maps rows to the response shape', async () => {
    expect(JSON.parse(renderClient(await service.findOne('c1', CALLER)))).toEqual({
      id: 'c1',
      linkId: 'l1',
      isDeleted: false,
      status: 'new',
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  it('counts a total of few rows outside the counts cap, which stays for costly counts', async () => {
    const limits = workLimits({ MAX_CONCURRENT_COUNTS: 1 });
    const shared = new ClientsService(
      new ClientsRepository(reader),
      new CountCache(0),
      codec,
      limits,
      new LimitsEnv(),
    );
    // The one count slot, taken until the end of the test.
    let free = () => {};
    const holding = limits.run('count', 'another-key', () => new Promise<void>((r) => (free = r)));
    const page = JSON.parse(
      renderClientsPage(await shared.list(query({ page: 1, limit: 1 }), CALLER)),
    );
    expect(page.meta).toMatchObject({ total: 3, totalPages: 3 });
    free();
    await holding;
  });

  it('combines filters and counts exactly', async () => {
    const page = await listed(service, { linkId: 'l1', isDeleted: true, status: 'connected' });
    expect(page.data.map((c: { id: string }) => c.id)).toEqual(['c2']);
    expect(page.meta).toEqual({ page: 1, limit: 100, total: 1, totalPages: 1, nextCursor: null });
  });

  it('pages with offset and limit', async () => {
    const first = await listed(service, { page: 1, limit: 2 });
    expect(first.data.map((c: { id: string }) => c.id)).toEqual(['c1', 'c2']);
    expect(first.meta.nextCursor).toEqual(expect.any(String));
    const second = await listed(service, { page: 2, limit: 2 });
    expect(second.data.map((c: { id: string }) => c.id)).toEqual(['c3']);
    expect(second.meta).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null });
  });

  // A page by number may reach only so deep; past the end it is still the empty page.
  it('refuses a page deeper than MAX_PAGE_DEPTH rows unless it is past the end', async () => {
    const shallow = serviceWith(new CountCache(0), { MAX_PAGE_DEPTH: 2 });
    expect((await listed(shallow, { page: 1, limit: 2 })).data).toHaveLength(2);
    expect((await listed(shallow, { page: 2, limit: 1 })).data).toHaveLength(1);
    const refused = shallow.list(query({ page: 3, limit: 1 }), CALLER);
    await expect(refused).rejects.toMatchObject({
      response: { errors: [{ name: 'page', reason: expect.stringContaining('cursor paging') }] },
    });
    await expect(shallow.list(query({ page: 1, limit: 3 }), CALLER)).rejects.toThrow();
    const pastTheEnd = await listed(shallow, { page: 2, limit: 3 });
    expect(pastTheEnd).toEqual({
      data: [],
      meta: { page: 2, limit: 3, total: 3, totalPages: 1, nextCursor: null },
    });
    expect((await listed(shallow, { page: 2147483647, limit: 1000 })).data).toEqual([]);
  });

  it('continues from a cursor', async () => {
    const first = await listed(service, { limit: 1 });
    // The validation pipe decodes the cursor into `after`.
    const after = codec.decode(first.meta.nextCursor, listClientsScope(query({ limit: 5 })));
    const next = await listed(service, { limit: 5, after: after as Position });
    expect(next.data.map((c: { id: string }) => c.id)).toEqual(['c2', 'c3']);
    expect(next.meta).toEqual({ limit: 5, nextCursor: null });
  });

  it('answers a link id with NUL without querying', async () => {
    const spy = jest.spyOn(reader, 'query');
    try {
      await expect(listed(service, { linkId: 'l1\u0000' })).resolves.toEqual({
        data: [],
        meta: { page: 1, limit: 100, total: 0, totalPages: 0, nextCursor: null },
      });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  describe('counting', () => {
    const queriesFor = async (fields: Partial<ListClientsQuery>) => {
      const spy = jest.spyOn(reader, 'query');
      try {
        const { meta } = await listed(service, fields);
        return { meta, queries: spy.mock.calls.length };
      } finally {
        spy.mockRestore();
      }
    };

    it.each([
      ['the only page', {}, 3, 1],
      ['the last page', { page: 2, limit: 2 }, 3, 2],
      ['an empty list', { linkId: 'none' }, 0, 0],
    ])('reads %s with one query: its rows tell the total', async (_, fields, total, pages) => {
      const { meta, queries } = await queriesFor(fields);
      expect(meta).toMatchObject({ total, totalPages: pages, nextCursor: null });
      expect(queries).toBe(1);
    });

    it.each([
      ['a full page', { page: 1, limit: 2 }],
      ['a page past the end', { page: 3, limit: 2 }],
    ])('counts for %s', async (_, fields) => {
      const { meta, queries } = await queriesFor(fields);
      expect(meta).toMatchObject({ total: 3, totalPages: 2 });
      expect(queries).toBe(2);
    });
  });

  it.each(['nope', 'c1\u0000', "c1' OR '1'='1"])('throws NotFoundException for %j', async (id) => {
    await expect(service.findOne(id, CALLER)).rejects.toBeInstanceOf(NotFoundException);
  });
});
