/** The row triggers that run before an insert or update of the feeds' tables, in firing order. */
export const ROW_TRIGGERS_QUERY = `
  SELECT c.relname AS "table", t.tgname AS name, t.tgenabled AS enabled
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE t.tgrelid IN (to_regclass('links'), to_regclass('clients')) AND NOT t.tgisinternal
    AND t.tgtype & 3 = 3 AND t.tgtype & 20 <> 0
  ORDER BY t.tgname COLLATE "C"`;

export interface RowTrigger {
  table: string;
  name: string;
  /** pg_trigger.tgenabled: O fires for ordinary writes, A always, R for replication only, D never. */
  enabled: 'O' | 'A' | 'R' | 'D';
}

/** The writes a trigger fires for, by session_replication_role: ordinary ones, replication's. */
const FIRES_FOR: Record<RowTrigger['enabled'], string[]> = {
  O: ['ordinary'],
  A: ['ordinary', 'replicated'],
  R: ['replicated'],
  D: [],
};

/**
 * What could stamp a change behind the change feeds' safe point, so that they skip it: a
 * table's stamping trigger missing or not firing for ordinary writes, or another trigger that
 * PostgreSQL fires after it for the same writes (a table's row triggers fire in name order),
 * which could set updated_at again (to now(), the transaction's start, say).
 */
export function stampingRisks(triggers: readonly RowTrigger[]): string[] {
  return ['links', 'clients'].flatMap((table) => {
    const stamp = `${table}_stamp_updated_at`;
    const onTable = triggers.filter((trigger) => trigger.table === table);
    const at = onTable.findIndex((trigger) => trigger.name === stamp);
    const stamped = at === -1 ? [] : FIRES_FOR[onTable[at].enabled];
    if (!stamped.includes('ordinary')) {
      const state = at === -1 ? 'missing' : stamped.length ? 'replication-only' : 'disabled';
      return [
        `The trigger ${stamp} is ${state}: changes written meanwhile keep the updated_at their writer gave, and the change feeds may skip them (run npm run migration:run, or ALTER TABLE ${table} ENABLE TRIGGER ${stamp}, ENABLE ALWAYS TRIGGER where logical replication fills the table)`,
      ];
    }
    return onTable
      .slice(at + 1)
      .filter((later) => FIRES_FOR[later.enabled].some((writes) => stamped.includes(writes)))
      .map(
        (later) =>
          `The trigger ${later.name} on ${table} fires after ${stamp}: should it set updated_at, the change feeds may skip changes (rename it to sort before ${stamp}, or drop it)`,
      );
  });
}
