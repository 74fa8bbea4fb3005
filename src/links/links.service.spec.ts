import { NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createSuiteDatabase, dropSuiteDatabase } from '../../test/support/database';
import { insertLinks } from '../../test/support/fixtures';
import { Link } from './link.entity';
import { LinksService } from './links.service';

describe('LinksService', () => {
  let dataSource: DataSource;
  let service: LinksService;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    service = new LinksService(dataSource.getRepository(Link));
    await insertLinks(dataSource, [
      { id: 'b', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-03T00:00:00Z' },
      { id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' },
      { id: 'early', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' },
    ]);
  });
  afterAll(() => dropSuiteDatabase(dataSource));

  it('lists by createdAt then id, with the total', async () => {
    const list = await service.list();
    expect(list.data.map((l) => l.id)).toEqual(['early', 'a', 'b']);
    expect(list.meta).toEqual({ total: 3 });
  });

  it('finds one and maps it', async () => {
    await expect(service.findOne('a')).resolves.toEqual({
      id: 'a',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  it.each(['nope', 'a\u0000'])('throws NotFoundException for %j', async (id) => {
    await expect(service.findOne(id)).rejects.toBeInstanceOf(NotFoundException);
  });
});
