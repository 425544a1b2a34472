/**
 * The sqlite driver: Node's own `node:sqlite` (`DatabaseSync`, Node 22.13 and later), behind the small surface the
 * store uses (prepare, exec, pragma, transaction, inTransaction, close). Nothing to compile and nothing to rebuild
 * when the machine's Node changes (issue 22: a better-sqlite3 built for one Node refused to load on the next).
 *
 * The surface is the one better-sqlite3 offered, so files written by it open unchanged (same schema and pragmas), and
 * the store bench can run the same store on either driver in one process (bench/store-drivers.bench.ts).
 *
 * `node:sqlite` is loaded on first use: a flow or a CLI run that never opens a file store does not load it, and on
 * Node 22 its one ExperimentalWarning is kept from users (`loadNodeSqlite`); every other warning still prints.
 */
import { StoreError } from './errors';

export interface SqliteRunResult {
  changes: number;
}

/** A prepared statement; `P` the positional parameters (or one object of named ones), `R` a row. */
export interface SqliteStatement<P extends unknown[] = unknown[], R = Record<string, unknown>> {
  run(...params: P): SqliteRunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

export interface SqliteDatabase {
  readonly inTransaction: boolean;
  prepare<P extends unknown[] = unknown[], R = Record<string, unknown>>(sql: string): SqliteStatement<P, R>;
  exec(sql: string): unknown;
  /** `PRAGMA <text>`: every row, or with `simple` the first column of the first row. */
  pragma(text: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` in a transaction, or a savepoint when one is already open; a throw rolls it back. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  close(): void;
}

export type SqliteConstructor = new (file: string, options?: { timeout?: number }) => SqliteDatabase;

/** What the store is built on, as named in errors, `--check` and docs. */
export const SQLITE_PACKAGE = 'node:sqlite';
/** The first Node.js whose `node:sqlite` needs no flag. */
export const SQLITE_MIN_NODE = '22.13.0';

interface NativeStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction?: boolean;
}
type NativeDatabaseConstructor = new (file: string, options?: Record<string, unknown>) => NativeDatabase;

let loaded: SqliteConstructor | undefined;

/**
 * Requires `node:sqlite` with its ExperimentalWarning (Node 22 prints one on first load) dropped: the store is
 * tested on that Node, and the warning would only alarm a user who can do nothing about it. Only that warning is
 * dropped, only during this require; anything else emitted meanwhile goes through.
 */
function loadNodeSqlite(): { DatabaseSync: NativeDatabaseConstructor } {
  const original = process.emitWarning;
  const filtered = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof warning === 'string' ? (typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type) : warning.name;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && /\bSQLite\b/i.test(text)) return;
    (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  try {
    // A plain require keeps the load lazy (and typed here, since @types/node 20 has no node:sqlite).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite') as { DatabaseSync: NativeDatabaseConstructor };
  } finally {
    process.emitWarning = original;
  }
}

/** Throws `StoreError` `STORE_DRIVER_MISSING` when this Node.js has no `node:sqlite` (older than 22.13). */
export function loadSqliteDriver(): SqliteConstructor {
  if (loaded !== undefined) return loaded;
  let native: { DatabaseSync: NativeDatabaseConstructor };
  try {
    native = loadNodeSqlite();
  } catch (err) {
    throw new StoreError(
      'STORE_DRIVER_MISSING',
      `the durable store needs ${SQLITE_PACKAGE}, which Node.js ${process.version} does not have; run the gateway on ` +
        `Node.js ${SQLITE_MIN_NODE} or later (or open the store as ':memory:' to run without persistence)`,
      { package: SQLITE_PACKAGE, node: process.version, needs: `>=${SQLITE_MIN_NODE}` },
      { cause: err },
    );
  }
  loaded = nodeSqliteDatabase(native.DatabaseSync);
  return loaded;
}

/** A `SqliteDatabase` class over `node:sqlite`'s `DatabaseSync`. */
function nodeSqliteDatabase(DatabaseSync: NativeDatabaseConstructor): SqliteConstructor {
  return class NodeSqliteDatabase implements SqliteDatabase {
    private readonly db: NativeDatabase;
    /** Our own count of open levels, for Nodes whose DatabaseSync has no `isTransaction` (before 22.16). */
    private depth = 0;
    private closed = false;

    constructor(file: string, options: { timeout?: number } = {}) {
      this.db = new DatabaseSync(file);
      // Before any statement that takes a lock: how long to wait for another owner (better-sqlite3's `timeout`).
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.timeout ?? 5000))}`);
    }

    get inTransaction(): boolean {
      // DatabaseSync throws on `isTransaction` once closed; the store asks before it checks for closed.
      if (this.closed) return false;
      return this.db.isTransaction ?? this.depth > 0;
    }

    prepare<P extends unknown[] = unknown[], R = Record<string, unknown>>(sql: string): SqliteStatement<P, R> {
      // Integers come back as numbers and `changes` as a number while readBigInts is off (the default).
      return this.db.prepare(sql) as unknown as SqliteStatement<P, R>;
    }

    exec(sql: string): void {
      this.db.exec(sql);
    }

    pragma(text: string, options: { simple?: boolean } = {}): unknown {
      const statement = this.db.prepare(`PRAGMA ${text}`);
      if (!options.simple) return statement.all();
      const row = statement.get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    }

    transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
      return (...args: A): T => (this.inTransaction ? this.savepoint(fn, args) : this.outermost(fn, args));
    }

    /** Idempotent, as the store's own close is (DatabaseSync throws on a second close). */
    close(): void {
      if (this.closed) return;
      this.closed = true;
      this.db.close();
    }

    private outermost<A extends unknown[], T>(fn: (...args: A) => T, args: A): T {
      this.db.exec('BEGIN');
      this.depth += 1;
      try {
        const result = fn(...args);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        // A failed COMMIT may have ended the transaction already; the first error is the one to report.
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // nothing open any more
        }
        throw err;
      } finally {
        this.depth -= 1;
      }
    }

    private savepoint<A extends unknown[], T>(fn: (...args: A) => T, args: A): T {
      this.db.exec('SAVEPOINT clawling_level');
      this.depth += 1;
      try {
        const result = fn(...args);
        this.db.exec('RELEASE clawling_level');
        return result;
      } catch (err) {
        this.db.exec('ROLLBACK TO clawling_level');
        this.db.exec('RELEASE clawling_level');
        throw err;
      } finally {
        this.depth -= 1;
      }
    }
  };
}

const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};

/**
 * The sqlite result name of a driver error (`SQLITE_BUSY`, `SQLITE_NOTADB`, …), or '' for anything else. node:sqlite
 * reports `ERR_SQLITE_ERROR` with the number in `errcode`; better-sqlite3 (the bench's other driver) the name in `code`.
 */
export function sqliteCodeOf(err: unknown): string {
  const e = err as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE')) return e.code;
  if (e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') return PRIMARY_CODES[e.errcode & 0xff] ?? `SQLITE_${e.errcode}`;
  return '';
}
