import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Long polls of the change feeds (docs/api.md "Change feeds") are woken by PostgreSQL: every
 * statement that inserts or updates links or clients sends one notification on the channel
 * `feed_changes`, its payload the table's name. NOTIFY is delivered at commit, and only then,
 * so a rolled-back write wakes no one; identical payloads of one transaction are delivered
 * once, so a transaction of many statements costs one notification per table.
 */
export class NotifyFeedChanges1767916800000 implements MigrationInterface {
  name = 'NotifyFeedChanges1767916800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION notify_feed_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('feed_changes', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const table of ['links', 'clients']) {
      await queryRunner.query(`
        CREATE OR REPLACE TRIGGER ${table}_notify_feed_change AFTER INSERT OR UPDATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_feed_change()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['links', 'clients']) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_notify_feed_change ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS notify_feed_change()`);
  }
}
