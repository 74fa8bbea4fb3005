import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexesConcurrently } from './concurrent-index';

/**
 * The change feeds (docs/api.md "Change feeds"): every insert and update of links and clients
 * stamps updated_at with the time of the write, and indexes serve the feeds in their order.
 *
 * The trigger first makes sure its transaction holds a transaction id, then reads the clock:
 * from that instant the writer shows in pg_stat_activity with its xact_start, which the feed's
 * safe point waits for. clock_timestamp(), not now(): now() is the transaction's start, which
 * would stamp a long transaction's rows in the past, behind positions already served.
 *
 * Built CONCURRENTLY (hence no transaction) so the systems writing to the tables are not blocked.
 */
export class StampChangesForFeeds1767484800000 implements MigrationInterface {
  name = 'StampChangesForFeeds1767484800000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION stamp_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_current_xact_id();
        NEW.updated_at := clock_timestamp();
        RETURN NEW;
      END $$`);
    for (const table of ['links', 'clients']) {
      await queryRunner.query(`
        CREATE OR REPLACE TRIGGER ${table}_stamp_updated_at BEFORE INSERT OR UPDATE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION stamp_updated_at()`);
    }
    await replaceIndexesConcurrently(queryRunner, FEED_INDEXES, []);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await replaceIndexesConcurrently(queryRunner, {}, Object.keys(FEED_INDEXES));
    for (const table of ['links', 'clients']) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_stamp_updated_at ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS stamp_updated_at()`);
  }
}

const FEED_INDEXES = {
  links_changes_idx: `links (updated_at, id COLLATE "C")`,
  clients_changes_idx: `clients (updated_at, id COLLATE "C")`,
  clients_link_changes_idx: `clients (link_id, updated_at, id COLLATE "C")`,
};
