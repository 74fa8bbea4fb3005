import { MigrationInterface, QueryRunner } from 'typeorm';

// The schema is docs/api.md, Resources, word for word; other systems write these tables.
export class CreateLinksAndClients1767225600000 implements MigrationInterface {
  name = 'CreateLinksAndClients1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE links (
        id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE clients (
        id text PRIMARY KEY,
        link_id text NOT NULL REFERENCES links (id),
        is_deleted boolean NOT NULL DEFAULT false,
        status text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Lists are ordered by created_at, then id in byte order (COLLATE "C", whatever the
    // database locale); these indexes give that order, alone or after an equality filter.
    await queryRunner.query(
      `CREATE INDEX links_created_at_id_idx ON links (created_at, id COLLATE "C")`,
    );
    await queryRunner.query(
      `CREATE INDEX clients_created_at_id_idx ON clients (created_at, id COLLATE "C")`,
    );
    await queryRunner.query(
      `CREATE INDEX clients_link_id_created_at_id_idx ON clients (link_id, created_at, id COLLATE "C")`,
    );
    await queryRunner.query(
      `CREATE INDEX clients_status_created_at_id_idx ON clients (status, created_at, id COLLATE "C")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE clients`);
    await queryRunner.query(`DROP TABLE links`);
  }
}
