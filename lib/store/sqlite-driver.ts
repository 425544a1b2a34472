/**
 * Loads the optional native driver on first use. `better-sqlite3` is an optional dependency: a flow or a CLI run
 * that never opens a file store must work without it, and one that does gets an error that names the package, what
 * went wrong with it and the command that fixes it.
 *
 * better-sqlite3 loads its native addon only when the first database opens, so a package whose addon is missing or
 * built for another Node.js would `require` fine and fail later with a bare "Could not locate the bindings file".
 * The loader opens one in-memory database at once to bring that failure here, where it can be told apart from a
 * package that is not installed at all (`STORE_DRIVER_MISSING`) as `STORE_DRIVER_UNLOADABLE`.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from './errors';
import { describeNativeLoadFailure, installingFolder, projectFolder, remedyCommand } from './native-module';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteConstructor = typeof BetterSqlite3;

export const SQLITE_PACKAGE = 'better-sqlite3';

let loaded: SqliteConstructor | undefined;

/** Where `better-sqlite3` resolves from this module, if it is there at all. */
function resolvedFile(): string | undefined {
  try {
    return require.resolve(SQLITE_PACKAGE);
  } catch {
    return undefined;
  }
}

/** Throws `StoreError` `STORE_DRIVER_MISSING` (not installed) or `STORE_DRIVER_UNLOADABLE` (installed, addon fails). */
export function loadSqliteDriver(): SqliteConstructor {
  if (loaded !== undefined) return loaded;
  let Driver: SqliteConstructor;
  try {
    // A plain require keeps the load lazy; the import above is types only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    Driver = require(SQLITE_PACKAGE) as SqliteConstructor;
    new Driver(':memory:').close();
  } catch (err) {
    throw driverError(err);
  }
  loaded = Driver;
  return Driver;
}

function driverError(err: unknown): StoreError {
  const failure = describeNativeLoadFailure(err, SQLITE_PACKAGE);
  const file = resolvedFile();
  const folder = (file !== undefined ? installingFolder(file, SQLITE_PACKAGE) : undefined) ?? projectFolder(__dirname);
  const fix = remedyCommand(failure, SQLITE_PACKAGE, folder);
  const details = { package: SQLITE_PACKAGE, reason: failure.kind, folder, remedy: fix };
  if (failure.kind === 'not-installed') {
    return new StoreError(
      'STORE_DRIVER_MISSING',
      `the durable store needs the optional package '${SQLITE_PACKAGE}', which is not installed; install it with: ${fix} ` +
        `(or open the store as ':memory:' to run without persistence)`,
      details,
      { cause: err },
    );
  }
  return new StoreError(
    'STORE_DRIVER_UNLOADABLE',
    `the optional package '${SQLITE_PACKAGE}' is installed${file !== undefined ? ` (${folder})` : ''} but ${failure.reason}; rebuild it with: ${fix}`,
    details,
    { cause: err },
  );
}
