import { Injectable, OnModuleInit } from '@nestjs/common';
import { DatabaseReader } from './database-reader';

// What the API reads, and the one thing it writes (docs/operations.md, Database roles).
const ACCESS_QUERY = `
  SELECT what, to_regclass(tbl) IS NOT NULL AS "exists",
         to_regclass(tbl) IS NOT NULL AND has_table_privilege(to_regclass(tbl), 'SELECT') AS allowed
  FROM (VALUES ('links', 'links'), ('clients', 'clients'), ('api_keys', 'api_keys')) AS t (what, tbl)
  UNION ALL
  SELECT 'UPDATE of api_keys.last_used_at', to_regclass('api_keys') IS NOT NULL,
         to_regclass('api_keys') IS NOT NULL
           AND has_column_privilege('api_keys', 'last_used_at', 'UPDATE')
  UNION ALL
  SELECT 'oldest_writer_start()', to_regprocedure('oldest_writer_start()') IS NOT NULL,
         to_regprocedure('oldest_writer_start()') IS NOT NULL
           AND has_function_privilege(to_regprocedure('oldest_writer_start()'), 'EXECUTE')`;

/**
 * Refuses to start on a schema the migrations have not made, or with a role not granted what
 * the API uses: such a pod would pass its readiness check (the database answers) and then fail
 * every request with a 500.
 */
@Injectable()
export class SchemaAccess implements OnModuleInit {
  constructor(private readonly database: DatabaseReader) {}

  async onModuleInit(): Promise<void> {
    const rows = await this.database.query<{ what: string; exists: boolean; allowed: boolean }[]>(
      ACCESS_QUERY,
      [],
      { primary: true },
    );
    const missing = rows.filter((row) => !row.exists).map((row) => row.what);
    if (missing.length > 0) {
      throw new Error(
        `The schema lacks ${missing.join(', ')}: run \`npm run migration:run\` first`,
      );
    }
    const denied = rows.filter((row) => !row.allowed).map((row) => row.what);
    if (denied.length > 0) {
      throw new Error(
        `The database role may not use ${denied.join(', ')}: run deploy/sql/roles.sql after the migrations (docs/operations.md, Database roles)`,
      );
    }
  }
}
