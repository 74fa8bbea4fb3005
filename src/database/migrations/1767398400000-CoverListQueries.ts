import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that answer every List Clients filter combination from the index alone: each is
 * ordered like the list (created_at, then id in byte order) and carries the filter columns,
 * so a page's keys, however deep, and the totals come from index-only scans. Built
 * CONCURRENTLY (hence no transaction) so the systems writing to `clients` are not blocked.
 */
export class CoverListQueries1767398400000 implements MigrationInterface {
  name = 'CoverListQueries1767398400000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const indexes = [
      // No filter, or isDeleted only.
      `clients_list_idx ON clients (created_at, id COLLATE "C") INCLUDE (is_deleted, status)`,
      `clients_link_list_idx ON clients (link_id, created_at, id COLLATE "C") INCLUDE (is_deleted, status)`,
      `clients_status_list_idx ON clients (status, created_at, id COLLATE "C") INCLUDE (is_deleted)`,
      // isDeleted=true selects a small share of rows: a partial index keeps its pages dense.
      `clients_deleted_list_idx ON clients (created_at, id COLLATE "C") INCLUDE (status) WHERE is_deleted`,
    ];
    for (const index of indexes) {
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index}`);
    }
    for (const replaced of ['created_at_id', 'link_id_created_at_id', 'status_created_at_id']) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS clients_${replaced}_idx`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS clients_created_at_id_idx ON clients (created_at, id COLLATE "C")`,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS clients_link_id_created_at_id_idx ON clients (link_id, created_at, id COLLATE "C")`,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS clients_status_created_at_id_idx ON clients (status, created_at, id COLLATE "C")`,
    );
    for (const index of ['list', 'link_list', 'status_list', 'deleted_list']) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS clients_${index}_idx`);
    }
  }
}
