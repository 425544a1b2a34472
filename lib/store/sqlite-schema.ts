/**
 * The file layout of the sqlite store, version 2. A file whose `user_version` is higher was written by a newer
 * release and is refused rather than misread; additions get a new version and a migration step here.
 *
 * Version 2: seen-sets are logs (`seen_log`, lib/store/sqlite-seen-set.ts says why); a version 1 file's `seen` rows
 * move there when it is first opened, in the same transaction as the version change (`MIGRATE_V1_TO_V2`).
 */
export const SCHEMA_VERSION = 2;

export const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS kv (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS inbox (
  message_id  TEXT PRIMARY KEY,
  chat_id     TEXT NOT NULL,
  event       TEXT NOT NULL,
  sender_id   TEXT NOT NULL,
  provisional INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  body        TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  ord         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS inbox_by_ord ON inbox (ord);

CREATE TABLE IF NOT EXISTS queue_meta (
  name           TEXT PRIMARY KEY,
  capacity       INTEGER NOT NULL,
  overflow       TEXT NOT NULL,
  max_item_bytes INTEGER NOT NULL,
  size           INTEGER NOT NULL DEFAULT 0,
  next_seq       INTEGER NOT NULL DEFAULT 1,
  pushed         INTEGER NOT NULL DEFAULT 0,
  removed        INTEGER NOT NULL DEFAULT 0,
  dropped        INTEGER NOT NULL DEFAULT 0,
  rejected       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS queue_items (
  name        TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  is_text     INTEGER NOT NULL,
  value       BLOB NOT NULL,
  enqueued_at INTEGER NOT NULL,
  PRIMARY KEY (name, seq)
);

CREATE TABLE IF NOT EXISTS seen (
  name TEXT NOT NULL,
  key  TEXT NOT NULL,
  ord  INTEGER NOT NULL,
  at   INTEGER NOT NULL,
  PRIMARY KEY (name, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS seen_by_ord ON seen (name, ord);
`;

/** Seen-set keys in the order added, as JSON arrays of keys per row. */
export const SCHEMA_V2 = `
CREATE TABLE IF NOT EXISTS seen_log (
  name  TEXT NOT NULL,
  first INTEGER NOT NULL,
  keys  TEXT NOT NULL,
  at    INTEGER NOT NULL,
  UNIQUE (name, first)
);
`;

/**
 * Version 1's seen rows, oldest first, as rows of up to 64 keys (by ranges of their order numbers, so a row may hold
 * fewer); the live count (`seen.<name>.size`) and the order counter are unchanged.
 */
export const MIGRATE_V1_TO_V2 = `
INSERT INTO seen_log (name, first, keys, at)
  SELECT name, min(ord), json_group_array(key ORDER BY ord), max(at) FROM seen GROUP BY name, ord / 64;
DELETE FROM seen;
`;
