import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Managed keys may be limited (docs/operations.md, "Scoped keys"): to some operations
 * (`operations`, every one when null), and to the rows of some links (`is_link_scoped`, the
 * links listed in api_key_links, which may name links that do not exist yet). Every key made
 * before keeps full access: null operations, not link-scoped.
 */
export class ScopeApiKeys1768089600000 implements MigrationInterface {
  name = 'ScopeApiKeys1768089600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN operations text[]
          CHECK (operations <@ ARRAY['links:read', 'clients:read', 'changes:read']),
        ADD COLUMN is_link_scoped boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      CREATE TABLE api_key_links (
        key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        link_id text NOT NULL CHECK (link_id <> '' AND length(link_id) <= 255),
        PRIMARY KEY (key_id, link_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_key_links`);
    await queryRunner.query(
      `ALTER TABLE api_keys DROP COLUMN operations, DROP COLUMN is_link_scoped`,
    );
  }
}
