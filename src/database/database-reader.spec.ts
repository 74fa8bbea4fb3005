import { ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { DatabaseReader } from './database-reader';

function readerAnsweringIn(ms: number) {
  const released: string[] = [];
  const dataSource = {
    defaultReplicationModeForReads: () => 'slave',
    createQueryRunner: (mode: string) => ({
      query: (text: string) =>
        new Promise((resolve) => setTimeout(() => resolve([{ text, mode }]), ms)),
      release: async () => void released.push(mode),
    }),
  } as unknown as DataSource;
  const config = { get: () => 50 } as unknown as ConfigService<never, true>;
  return { reader: new DatabaseReader(dataSource, config), released };
}

describe('DatabaseReader', () => {
  it('reads where reads belong and releases the connection', async () => {
    const { reader, released } = readerAnsweringIn(5);
    await expect(reader.query('SELECT 1', [])).resolves.toEqual([
      { text: 'SELECT 1', mode: 'slave' },
    ]);
    expect(released).toEqual(['slave']);
  });

  it('answers 503 once DATABASE_TIMEOUT_MS has passed, and still releases the connection later', async () => {
    const { reader, released } = readerAnsweringIn(200);
    const started = Date.now();
    await expect(reader.query('SELECT pg_sleep(1)', [])).rejects.toBeInstanceOf(
      ServiceUnavailableException,
    );
    expect(Date.now() - started).toBeLessThan(190);
    expect(released).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(released).toEqual(['slave']);
  });
});
