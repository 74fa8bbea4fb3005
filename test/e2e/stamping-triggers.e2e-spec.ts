import { Logger } from '@nestjs/common';
import { SchemaAccess } from '../../src/database/schema-access';
import { createTestApp, TestApp } from '../support/create-app';

// The start's schema check, run again after the feeding systems changed the tables' triggers.
describe('Stamping triggers the change feeds rely on', () => {
  let t: TestApp;
  let warn: jest.SpyInstance;
  const warnings = async () => {
    warn.mockClear();
    await t.app.get(SchemaAccess).onModuleInit();
    return warn.mock.calls.map(([message]) => String(message));
  };

  beforeAll(async () => {
    t = await createTestApp();
    warn = jest.spyOn(Logger.prototype, 'warn');
  });
  afterAll(async () => {
    warn.mockRestore();
    await t.close();
  });

  it('warns of nothing on the schema the migrations made', async () => {
    expect(await warnings()).toEqual([]);
  });

  it('warns of a trigger firing after the stamp, which could set updated_at again', async () => {
    await t.dataSource.query(`
      CREATE FUNCTION set_updated_at_now() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.updated_at := now(); RETURN NEW; END $$`);
    // Sorts after clients_stamp_updated_at, so PostgreSQL fires it last; a_… fires first.
    for (const name of ['handle_updated_at', 'a_set_updated_at']) {
      await t.dataSource.query(`
        CREATE TRIGGER ${name} BEFORE UPDATE ON clients
        FOR EACH ROW EXECUTE FUNCTION set_updated_at_now()`);
    }
    // One that fires only for replication, and an AFTER trigger, cannot change the row.
    await t.dataSource.query(`
      CREATE TRIGGER replicated_updated_at BEFORE UPDATE ON clients
      FOR EACH ROW EXECUTE FUNCTION set_updated_at_now();
      ALTER TABLE clients ENABLE REPLICA TRIGGER replicated_updated_at;
      CREATE TRIGGER z_after AFTER UPDATE ON clients
      FOR EACH ROW EXECUTE FUNCTION set_updated_at_now()`);
    const after = (name: string) =>
      `The trigger ${name} on clients fires after clients_stamp_updated_at: should it set updated_at, the change feeds may skip changes (rename it to sort before clients_stamp_updated_at, or drop it)`;
    try {
      expect(await warnings()).toEqual([after('handle_updated_at')]);
      // A stamp that fires for replicated writes too meets the replication-only trigger there.
      await t.dataSource.query(
        `ALTER TABLE clients ENABLE ALWAYS TRIGGER clients_stamp_updated_at`,
      );
      expect(await warnings()).toEqual([
        after('handle_updated_at'),
        after('replicated_updated_at'),
      ]);
    } finally {
      await t.dataSource.query(`ALTER TABLE clients ENABLE TRIGGER clients_stamp_updated_at`);
      await t.dataSource.query(`DROP FUNCTION set_updated_at_now() CASCADE`);
    }
  });

  it('warns of a stamping trigger disabled, firing for replication only, or dropped', async () => {
    await t.dataSource.query(`ALTER TABLE links DISABLE TRIGGER links_stamp_updated_at`);
    expect(await warnings()).toEqual([
      expect.stringMatching(/^The trigger links_stamp_updated_at is disabled: .*ENABLE TRIGGER/),
    ]);
    await t.dataSource.query(`ALTER TABLE links ENABLE REPLICA TRIGGER links_stamp_updated_at`);
    await t.dataSource.query(`DROP TRIGGER clients_stamp_updated_at ON clients`);
    expect(await warnings()).toEqual([
      expect.stringMatching(/^The trigger links_stamp_updated_at is replication-only: /),
      expect.stringMatching(/^The trigger clients_stamp_updated_at is missing: /),
    ]);
  });
});
