import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DatabaseReader } from './database-reader';
import { STANDBY_AS_PRIMARY } from './standby-as-primary';
import { ROW_TRIGGERS_QUERY, RowTrigger, stampingRisks } from './stamping-triggers';

const WRITERS = `to_regprocedure('oldest_writer_start()')`;

/**
 * What the API uses (docs/operations.md, Database roles): whether the migrations made each
 * object, and whether this role may read each table (null for a missing one).
 */
const ACCESS_QUERY = `
  SELECT t AS what, to_regclass(t) IS NOT NULL AS made,
         has_table_privilege(to_regclass(t), 'SELECT') AS allowed
  FROM unnest(ARRAY['links', 'clients', 'api_keys', 'api_key_links']) AS t
  UNION ALL
  SELECT 'api_keys.last_used_at',
         EXISTS (SELECT FROM pg_attribute
                 WHERE attrelid = to_regclass('api_keys') AND attname = 'last_used_at'),
         NULL
  UNION ALL
  SELECT 'oldest_writer_start()', ${WRITERS} IS NOT NULL, NULL`;
// Asked once every object exists: these checks raise an error on a missing one.
const GRANTS_QUERY = `
  SELECT pg_is_in_recovery() AS standby,
         has_column_privilege('api_keys', 'last_used_at', 'UPDATE') AS "updatesLastUse",
         has_function_privilege(${WRITERS}, 'EXECUTE') AS "callsWriters",
         (SELECT pg_has_role(proowner, 'pg_read_all_stats', 'USAGE')
          FROM pg_proc WHERE oid = ${WRITERS}) AS "writersSeen"`;

/**
 * Refuses to start on a schema the migrations have not made, or with a role not granted what
 * the API uses: such a pod would pass its readiness check (the database answers) and then fail
 * every request with a 500, or, for the change feeds, stall without an error (or, on a
 * standby, skip changes).
 */
@Injectable()
export class SchemaAccess implements OnModuleInit {
  private readonly logger = new Logger(SchemaAccess.name);

  constructor(private readonly database: DatabaseReader) {}

  async onModuleInit(): Promise<void> {
    const objects =
      await this.read<{ what: string; made: boolean; allowed: boolean | null }[]>(ACCESS_QUERY);
    const missing = objects.filter((object) => !object.made).map((object) => object.what);
    if (missing.length > 0) {
      throw new Error(
        `The schema lacks ${missing.join(', ')}: run \`npm run migration:run\` first`,
      );
    }
    const [grants] =
      await this.read<
        { standby: boolean; updatesLastUse: boolean; callsWriters: boolean; writersSeen: boolean }[]
      >(GRANTS_QUERY);
    if (grants.standby) throw new Error(STANDBY_AS_PRIMARY);
    const denied = [
      ...objects.filter((object) => object.allowed === false).map((object) => object.what),
      ...(grants.updatesLastUse ? [] : ['UPDATE of api_keys.last_used_at']),
      ...(grants.callsWriters ? [] : ['oldest_writer_start()']),
    ];
    if (denied.length > 0) {
      throw new Error(
        `The database role may not use ${denied.join(', ')}: run deploy/sql/roles.sql after the migrations (docs/operations.md, Database roles)`,
      );
    }
    if (!grants.writersSeen) {
      throw new Error(
        'The owner of oldest_writer_start() lacks pg_read_all_stats, so the change feeds would stall while other roles write: run deploy/sql/roles.sql, and the migrations as the role it sets up (docs/operations.md, Database roles)',
      );
    }
    // Warned, not refused: a bulk load may disable triggers for a while, and lists and gets
    // do not depend on them.
    for (const risk of stampingRisks(await this.read<RowTrigger[]>(ROW_TRIGGERS_QUERY))) {
      this.logger.warn(risk);
    }
  }

  private read<T>(text: string): Promise<T> {
    return this.database.query<T>(text, [], { primary: true });
  }
}
