// SQLSTATE 42P01, undefined_table: the schema predates the api_keys migration.
const UNDEFINED_TABLE = '42P01';

/** Runs `work`, turning a missing api_keys table into an error that says what to do. */
export async function withMigrationHint<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { driverError?: { code?: string } }).driverError?.code === UNDEFINED_TABLE) {
      throw new Error('The api_keys table is missing: run `npm run migration:run` first', {
        cause: error,
      });
    }
    throw error;
  }
}
