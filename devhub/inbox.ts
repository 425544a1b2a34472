/**
 * The durable inbox (guide §7.6, §11, §11.7): one row per `(recipient user, message_id)`, upsert on conflict, every
 * write bumping the row to the tail with a fresh storage `seq`. The `seq` counter is hub-wide, so one recipient's seq
 * space is sparse (other users' rows interleave, upserts leave holes): exactly the property a v1 client must survive.
 *
 * Beside the rows it keeps the per-device replay cursors and each user's prune boundary (for `history.truncated`).
 */
import { appendFields } from './envelope';

export type RowKind = 'message' | 'reaction' | 'notify' | 'transit' | 'poison';

export interface InboxRow {
  seq: number;
  message_id: string;
  event: string;
  kind: RowKind;
  chat_id: string | undefined;
  /** The device that produced it; that device never receives it back (self-echo). */
  origin_user_id: string | undefined;
  origin_device_id: string | undefined;
  /** history.transit: only this device receives it. */
  target_device_id: string | undefined;
  stream_merged: boolean;
  stored_at: number;
  /** The stored downlink envelope and its marshaled text (per-connection stamps are appended to `json`). */
  frame: Record<string, unknown>;
  json: string;
  /** Connections that already saw this row's content live and must not receive it again (a merged stream reply). */
  live_skip: Set<string> | undefined;
}

export type NewRow = Omit<InboxRow, 'seq' | 'json' | 'stored_at'> & { stored_at?: number };

interface UserInbox {
  rows: Map<string, InboxRow>;
  /** Rows in seq order; entries whose row was since re-bumped or deleted are stale and skipped. */
  log: InboxRow[];
  stale: number;
  /** Highest seq removed by retention (not by upsert or delete-on-delivery). */
  pruned_through: number;
}

export interface InboxSnapshot {
  next_seq: number;
  users: Record<string, { pruned_through: number; rows: Array<Omit<InboxRow, 'json' | 'live_skip'>> }>;
  cursors: Record<string, Record<string, number>>;
}

export class Inbox {
  private nextSeq = 1;
  /** Bumped by every change, so the state file is rewritten only when something moved. */
  revision = 0;
  private readonly users = new Map<string, UserInbox>();
  private readonly cursors = new Map<string, Map<string, number>>();
  private readonly listeners = new Set<(userId: string, row: InboxRow) => void>();

  constructor(
    private readonly now: () => number,
    /** The count rule of retention, applied on every write (0: none). */
    private readonly maxRowsPerUser = 0,
  ) {}

  onAppend(listener: (userId: string, row: InboxRow) => void): void {
    this.listeners.add(listener);
  }

  private box(userId: string): UserInbox {
    let box = this.users.get(userId);
    if (!box) {
      box = { rows: new Map(), log: [], stale: 0, pruned_through: 0 };
      this.users.set(userId, box);
    }
    return box;
  }

  /** Insert or overwrite the row of `(userId, message_id)`; the row moves to the tail with a new seq. */
  upsert(userId: string, input: NewRow): InboxRow {
    const box = this.box(userId);
    const previous = box.rows.get(input.message_id);
    if (previous) {
      box.rows.delete(input.message_id);
      box.stale++;
    }
    this.revision++;
    const row: InboxRow = { ...input, seq: this.nextSeq++, stored_at: input.stored_at ?? this.now(), json: JSON.stringify(input.frame) };
    box.rows.set(row.message_id, row);
    box.log.push(row);
    while (this.maxRowsPerUser > 0 && box.rows.size > this.maxRowsPerUser) {
      const oldest = box.rows.values().next().value as InboxRow;
      box.rows.delete(oldest.message_id);
      box.stale++;
      box.pruned_through = Math.max(box.pruned_through, oldest.seq);
    }
    this.compact(box);
    for (const listener of this.listeners) listener(userId, row);
    return row;
  }

  /** Deletes a row if it is still the given version (a re-bumped row is a newer write and stays). */
  delete(userId: string, row: InboxRow): boolean {
    const box = this.users.get(userId);
    if (!box || box.rows.get(row.message_id) !== row) return false;
    this.revision++;
    box.rows.delete(row.message_id);
    box.stale++;
    this.compact(box);
    return true;
  }

  get(userId: string, messageId: string): InboxRow | undefined {
    return this.users.get(userId)?.rows.get(messageId);
  }

  /** The first live row with seq greater than `afterSeq`. */
  next(userId: string, afterSeq: number): InboxRow | undefined {
    const box = this.users.get(userId);
    if (!box) return undefined;
    const log = box.log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid].seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < log.length; i++) {
      const row = log[i];
      if (box.rows.get(row.message_id) === row) return row;
    }
    return undefined;
  }

  rows(userId: string): InboxRow[] {
    const box = this.users.get(userId);
    return box ? [...box.rows.values()] : [];
  }

  oldestSeq(userId: string): number | undefined {
    return this.next(userId, 0)?.seq;
  }

  /** The seq the next write will take: a boundary above every existing row. */
  peekNextSeq(): number {
    return this.nextSeq;
  }

  prunedThrough(userId: string): number {
    return this.users.get(userId)?.pruned_through ?? 0;
  }

  /** Retention: removes rows by age, by count, or up to a seq. Returns how many went. */
  prune(userId: string, rule: { older_than?: number; keep_last?: number; through_seq?: number }): number {
    const box = this.users.get(userId);
    if (!box) return 0;
    const ordered = [...box.rows.values()];
    const excess = rule.keep_last !== undefined ? Math.max(0, ordered.length - rule.keep_last) : 0;
    let removed = 0;
    for (let i = 0; i < ordered.length; i++) {
      const row = ordered[i];
      const byCount = i < excess;
      const byAge = rule.older_than !== undefined && row.stored_at < rule.older_than;
      const bySeq = rule.through_seq !== undefined && row.seq <= rule.through_seq;
      if (!byCount && !byAge && !bySeq) continue;
      box.rows.delete(row.message_id);
      box.stale++;
      box.pruned_through = Math.max(box.pruned_through, row.seq);
      removed++;
    }
    if (removed > 0) this.revision++;
    this.compact(box);
    return removed;
  }

  userIds(): string[] {
    return [...this.users.keys()];
  }

  cursor(userId: string, deviceId: string): number {
    return this.cursors.get(userId)?.get(deviceId) ?? 0;
  }

  /** GREATEST semantics: a cursor never moves back except through `resetCursor`. */
  advanceCursor(userId: string, deviceId: string, seq: number): void {
    let devices = this.cursors.get(userId);
    if (!devices) {
      devices = new Map();
      this.cursors.set(userId, devices);
    }
    if (seq > (devices.get(deviceId) ?? 0)) {
      devices.set(deviceId, seq);
      this.revision++;
    }
  }

  resetCursor(userId: string, deviceId: string): void {
    this.cursors.get(userId)?.set(deviceId, 0);
    this.revision++;
  }

  cursorsOf(userId: string): Record<string, number> {
    return Object.fromEntries(this.cursors.get(userId) ?? []);
  }

  /** Drops stale log entries once they outnumber the live ones, keeping `next` logarithmic. */
  private compact(box: UserInbox): void {
    if (box.stale < 1024 || box.stale < box.rows.size) return;
    box.log = box.log.filter((row) => box.rows.get(row.message_id) === row);
    box.stale = 0;
  }

  snapshot(): InboxSnapshot {
    const users: InboxSnapshot['users'] = {};
    for (const [id, box] of this.users) {
      users[id] = {
        pruned_through: box.pruned_through,
        rows: [...box.rows.values()].map(({ json: _json, live_skip: _skip, ...row }) => row),
      };
    }
    const cursors: InboxSnapshot['cursors'] = {};
    for (const [id, devices] of this.cursors) cursors[id] = Object.fromEntries(devices);
    return { next_seq: this.nextSeq, users, cursors };
  }

  restore(snapshot: InboxSnapshot): void {
    this.nextSeq = Math.max(this.nextSeq, snapshot.next_seq);
    for (const [id, saved] of Object.entries(snapshot.users)) {
      const box = this.box(id);
      box.pruned_through = saved.pruned_through;
      for (const row of saved.rows.sort((a, b) => a.seq - b.seq)) {
        const full: InboxRow = { ...row, json: JSON.stringify(row.frame), live_skip: undefined };
        box.rows.set(full.message_id, full);
        box.log.push(full);
      }
    }
    for (const [id, devices] of Object.entries(snapshot.cursors)) {
      for (const [device, seq] of Object.entries(devices)) this.advanceCursor(id, device, seq);
    }
  }
}

/** The marshaled downlink of a row for one connection: `seq` on v1, `dseq` on v2. */
export function stampRow(row: InboxRow, seq: number | undefined, dseq: number | undefined): string {
  return appendFields(row.json, { seq, dseq });
}
