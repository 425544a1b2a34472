/**
 * Loads the optional native driver on first use. `better-sqlite3` is an optional dependency: a flow or a CLI run
 * that never opens a file store must work without it, and one that does gets an error that names the package.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from './errors';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteConstructor = typeof BetterSqlite3;

export const SQLITE_PACKAGE = 'better-sqlite3';

export function loadSqliteDriver(): SqliteConstructor {
  try {
    // A plain require keeps the load lazy; the import above is types only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(SQLITE_PACKAGE) as SqliteConstructor;
  } catch (err) {
    throw new StoreError(
      'STORE_DRIVER_MISSING',
      `the durable store needs the optional package '${SQLITE_PACKAGE}' (install it with 'npm install ${SQLITE_PACKAGE}@12'), ` +
        `or open the store as ':memory:' to run without persistence: ${(err as Error).message}`,
      { package: SQLITE_PACKAGE },
      { cause: err },
    );
  }
}
