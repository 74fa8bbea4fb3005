import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexesConcurrently } from './concurrent-index';

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
    await replaceIndexesConcurrently(
      queryRunner,
      {
        // No filter, or isDeleted only.
        clients_list_idx: `clients (created_at, id COLLATE "C") INCLUDE (is_deleted, status)`,
        clients_link_list_idx: `clients (link_id, created_at, id COLLATE "C") INCLUDE (is_deleted, status)`,
        clients_status_list_idx: `clients (status, created_at, id COLLATE "C") INCLUDE (is_deleted)`,
        // isDeleted=true selects a small share of rows: a partial index keeps its pages dense.
        clients_deleted_list_idx: `clients (created_at, id COLLATE "C") INCLUDE (status) WHERE is_deleted`,
      },
      [
        'clients_created_at_id_idx',
        'clients_link_id_created_at_id_idx',
        'clients_status_created_at_id_idx',
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await replaceIndexesConcurrently(
      queryRunner,
      {
        clients_created_at_id_idx: `clients (created_at, id COLLATE "C")`,
        clients_link_id_created_at_id_idx: `clients (link_id, created_at, id COLLATE "C")`,
        clients_status_created_at_id_idx: `clients (status, created_at, id COLLATE "C")`,
      },
      [
        'clients_list_idx',
        'clients_link_list_idx',
        'clients_status_list_idx',
        'clients_deleted_list_idx',
      ],
    );
  }
}
