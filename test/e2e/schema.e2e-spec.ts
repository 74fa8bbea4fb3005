import { DataSource } from 'typeorm';
import { createSuiteDatabase, dropSuiteDatabase } from '../support/database';

// The repositories take table and column names from the entities (entity-columns.ts); this
// proves that the entities describe the tables the migrations build, column for column.
describe('Entities and migrations agree', () => {
  let dataSource: DataSource;
  beforeAll(async () => (dataSource = await createSuiteDatabase()));
  afterAll(() => dropSuiteDatabase(dataSource));

  it('every table of the schema is an entity, with the same columns, types and nullability', async () => {
    const rows = await dataSource.query<
      { table: string; column: string; type: string; nullable: string }[]
    >(
      `SELECT table_name AS table, column_name AS column, data_type AS type, is_nullable AS nullable
       FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> 'migrations'
       ORDER BY table_name, column_name`,
    );
    const migrated = rows.map(
      (row) =>
        `${row.table}.${row.column} ${row.type} ${row.nullable === 'YES' ? 'null' : 'not null'}`,
    );
    const declared = dataSource.entityMetadatas
      .flatMap((entity) =>
        entity.columns.map(
          (column) =>
            `${entity.tableName}.${column.databaseName} ${column.isArray ? 'ARRAY' : typeName(String(column.type))} ${column.isNullable ? 'null' : 'not null'}`,
        ),
      )
      .sort();
    expect(declared).toEqual(migrated);
  });
});

// TypeORM's short names for the types information_schema spells out.
function typeName(type: string): string {
  return ({ timestamptz: 'timestamp with time zone' } as Record<string, string>)[type] ?? type;
}
