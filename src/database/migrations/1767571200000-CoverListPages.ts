import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexesConcurrently } from './concurrent-index';

/**
 * The filtered lists' indexes carry every column a client is printed with, so a page filtered
 * on `linkId`, `status` or `isDeleted=true`, at any depth, is one index-only scan: no row is
 * read back by primary key (on 1,000,000 clients, a page of 100 cost PostgreSQL twice as much
 * joined back as read from the index alone, for an index ~10 % larger).
 * `updated_at` was already indexed (the change feeds), so carrying it costs writers no HOT
 * update they had. The whole list's index stays as it was (docs/performance.md). Built
 * CONCURRENTLY (hence no transaction) before the indexes they replace are dropped, so lists stay
 * indexed throughout and the systems writing to `clients` are not blocked.
 */
export class CoverListPages1767571200000 implements MigrationInterface {
  name = 'CoverListPages1767571200000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await replaceIndexesConcurrently(queryRunner, PAGE_INDEXES, Object.keys(LIST_INDEXES));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await replaceIndexesConcurrently(queryRunner, LIST_INDEXES, Object.keys(PAGE_INDEXES));
  }
}

const PAGE_INDEXES = {
  clients_link_page_idx: `clients (link_id, created_at, id COLLATE "C") INCLUDE (is_deleted, status, updated_at)`,
  clients_status_page_idx: `clients (status, created_at, id COLLATE "C") INCLUDE (link_id, is_deleted, updated_at)`,
  // isDeleted=true selects a small share of rows: a partial index keeps its pages dense. It
  // carries is_deleted all the same: an index-only scan returns only the columns an index holds.
  clients_deleted_page_idx: `clients (created_at, id COLLATE "C") INCLUDE (link_id, is_deleted, status, updated_at) WHERE is_deleted`,
};

const LIST_INDEXES = {
  clients_link_list_idx: `clients (link_id, created_at, id COLLATE "C") INCLUDE (is_deleted, status)`,
  clients_status_list_idx: `clients (status, created_at, id COLLATE "C") INCLUDE (is_deleted)`,
  clients_deleted_list_idx: `clients (created_at, id COLLATE "C") INCLUDE (status) WHERE is_deleted`,
};
