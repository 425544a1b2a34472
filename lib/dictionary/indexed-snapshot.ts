/**
 * The hot path of collection Updates: a snapshot held as offsets into its own bytes instead of one view per key
 * and value, a delta applied as an overlay of the keys it names, and the result written by copying every run of
 * untouched entries in one block. Same rules, same error codes and the same output bytes as
 * `decodeSnapshot` → `applyDelta` → `encodeSnapshot` (a property test holds the two paths equal); the cost is
 * one pass over the snapshot plus the mutations, so it grows linearly with size.
 *
 * Byte-string and inbox-id keys only; the registry (component-id keys, small and rarely written) takes the
 * entry path.
 */
import { ByteReader } from './byte-reader';
import { ByteWriter, mlsVarintSize } from './byte-writer';
import { type CollectionShape, keySize, valueSize, writeKey } from './collections';
import { type ApplyDeltaOptions, type Mutation, sha256KeyHasher } from './delta';
import { DictionaryError } from './errors';

export interface SnapshotIndex {
  readonly buf: Uint8Array;
  readonly shape: CollectionShape;
  readonly count: number;
  /** Offset of each entry's first byte; `entryStart[count]` is the end of the body. */
  readonly entryStart: Int32Array;
  /** The key's value bytes (an inbox id's 32 bytes, a byte string's content). */
  readonly keyStart: Int32Array;
  readonly keyLen: Int32Array;
  /** The value's content bytes (zero length for a set). */
  readonly valueStart: Int32Array;
  readonly valueLen: Int32Array;
}

function compareRanges(a: Uint8Array, as: number, al: number, b: Uint8Array, bs: number, bl: number): number {
  const n = al < bl ? al : bl;
  for (let i = 0; i < n; i++) {
    const d = a[as + i] - b[bs + i];
    if (d !== 0) return d;
  }
  return al - bl;
}

/**
 * Parses and checks a snapshot like `decodeSnapshot`, keeping offsets only. The entry loop reads the buffer
 * directly (a method call per field is most of the cost at this size); the vector header and every error go
 * through `ByteReader` so codes and messages match the entry path.
 */
export function indexSnapshot(bytes: Uint8Array, shape: CollectionShape, context: string): SnapshotIndex {
  if (shape.keyKind === 'component') throw new DictionaryError('INTERNAL', 'component-keyed snapshots take the entry path');
  const r = new ByteReader(bytes, context);
  const body = r.vVector('entries');
  r.expectEnd('entries');
  const start = body.offset;
  const end = start + body.remaining;
  const inbox = shape.keyKind === 'inbox';
  const hasValue = shape.valueKind === 'bytes';
  // The smallest entry bounds the count by the input size, so the tables are sized once for inbox keys.
  const minEntry = inbox ? (hasValue ? 34 : 33) : hasValue ? 2 : 1;
  const cap = Math.floor((end - start) / minEntry) + 1;
  let size = inbox ? cap : Math.min(cap, 64 + ((end - start) >> 4));
  let entryStart: Int32Array = new Int32Array(size + 1);
  let keyStart: Int32Array = new Int32Array(size);
  let keyLen: Int32Array = new Int32Array(size);
  let valueStart: Int32Array = new Int32Array(size);
  let valueLen: Int32Array = new Int32Array(size);
  let n = 0;
  let pos = start;
  while (pos < end) {
    if (n >= size) {
      size = Math.min(cap, size * 2);
      entryStart = grow(entryStart, size + 1);
      keyStart = grow(keyStart, size);
      keyLen = grow(keyLen, size);
      valueStart = grow(valueStart, size);
      valueLen = grow(valueLen, size);
    }
    entryStart[n] = pos;
    let ks: number;
    let kl: number;
    if (inbox && pos + 33 <= end && bytes[pos] === 0) {
      ks = pos + 1;
      kl = 32;
      pos += 33;
    } else if (!inbox && pos < end && bytes[pos] < 0x40 && pos + 1 + bytes[pos] <= end) {
      ks = pos + 1;
      kl = bytes[pos];
      pos += 1 + kl;
    } else {
      // The slow, exact path for anything unusual: the reader raises the precise error.
      const sub = new ByteReader(bytes, context, pos, end);
      if (inbox) {
        sub.inboxId('key');
        ks = pos + 1;
        kl = 32;
      } else {
        kl = sub.mlsVarint('key length');
        ks = sub.skip(kl, 'key');
      }
      pos = sub.offset;
    }
    keyStart[n] = ks;
    keyLen[n] = kl;
    if (hasValue) {
      const first = pos < end ? bytes[pos] : -1;
      if (first >= 0 && first < 0x40 && pos + 1 + first <= end) {
        valueStart[n] = pos + 1;
        valueLen[n] = first;
        pos += 1 + first;
      } else {
        const sub = new ByteReader(bytes, context, pos, end);
        const len = sub.mlsVarint('value length');
        valueStart[n] = sub.skip(len, 'value');
        valueLen[n] = len;
        pos = sub.offset;
      }
    } else {
      valueStart[n] = pos;
      valueLen[n] = 0;
    }
    if (n > 0) {
      const c = compareRanges(bytes, keyStart[n - 1], keyLen[n - 1], bytes, ks, kl);
      if (c >= 0) {
        throw new DictionaryError('SNAPSHOT_NOT_CANONICAL', `${context}: entry ${n} ${c === 0 ? 'repeats the previous key' : 'is not in ascending key order'}`, {
          entry: n,
        });
      }
    }
    n++;
  }
  entryStart[n] = pos;
  return { buf: bytes, shape, count: n, entryStart, keyStart, keyLen, valueStart, valueLen };
}

function grow(a: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(a.subarray(0, Math.min(a.length, size)));
  return out;
}

/** The index of `key` in the snapshot, or `-(insertion point) - 1`. */
export function findIndexed(ix: SnapshotIndex, key: Uint8Array): number {
  let lo = 0;
  let hi = ix.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareRanges(ix.buf, ix.keyStart[mid], ix.keyLen[mid], key, 0, key.length);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/** A key the delta touched: its final value (`null` deleted, `undefined` the original value kept). */
interface Touched {
  readonly key: Uint8Array;
  value: Uint8Array | null | undefined;
  /** Its index in the snapshot, or -1 for a key the snapshot did not have. */
  readonly orig: number;
}

const EMPTY = new Uint8Array(0);

function keyId(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/** Applies a delta to an indexed snapshot and returns the new snapshot bytes. */
export function applyDeltaIndexed(ix: SnapshotIndex, mutations: readonly Mutation[], context: string, options: ApplyDeltaOptions = {}): Uint8Array {
  // Keys the snapshot has are tracked by their index; only keys it lacks need a string identity.
  const known = new Map<number, Touched>();
  const added = new Map<string, Touched>();
  let byHash: Map<string, number> | undefined;
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i];
    let key: Uint8Array;
    if (m.type === 'remove_by_hash') {
      byHash ??= hashIndex(ix, options);
      const found = byHash.get(Buffer.from(m.hash.buffer, m.hash.byteOffset, m.hash.byteLength).toString('base64'));
      if (found === undefined || found < 0) {
        throw new DictionaryError(
          'DELTA_HASH_UNRESOLVED',
          `${context}: mutation ${i} (remove_by_hash) matches ${found === undefined ? 'no key' : 'more than one key'} of the snapshot before the delta`,
          { mutation: i },
        );
      }
      key = ix.buf.subarray(ix.keyStart[found], ix.keyStart[found] + ix.keyLen[found]);
    } else key = m.key;
    options.onMutation?.(m, key, i);
    const at = findIndexed(ix, key);
    let t: Touched | undefined;
    if (at >= 0) {
      t = known.get(at);
      if (!t) known.set(at, (t = { key, value: undefined, orig: at }));
    } else {
      const id = keyId(key);
      t = added.get(id);
      if (!t) added.set(id, (t = { key, value: null, orig: -1 }));
    }
    const present = t.value !== null;
    if (m.type === 'insert') {
      if (present) throw new DictionaryError('DELTA_INSERT_PRESENT', `${context}: mutation ${i} inserts a key that is present`, { mutation: i });
      t.value = 'value' in m ? m.value : EMPTY;
    } else if (!present) {
      throw new DictionaryError('DELTA_KEY_ABSENT', `${context}: mutation ${i} (${m.type}) names a key that is absent`, { mutation: i });
    } else t.value = m.type === 'update' ? m.value : null;
  }
  return writeIndexed(ix, [...known.values(), ...added.values()]);
}

function hashIndex(ix: SnapshotIndex, options: ApplyDeltaOptions): Map<string, number> {
  const hasher = options.hasher ?? sha256KeyHasher;
  const map = new Map<string, number>();
  for (let i = 0; i < ix.count; i++) {
    // A key's TLS encoding is contiguous in the snapshot: from the entry start to the end of the key bytes.
    const h = hasher(ix.buf.subarray(ix.entryStart[i], ix.keyStart[i] + ix.keyLen[i]));
    map.set(h, map.has(h) ? -1 : i);
  }
  return map;
}

interface Placed {
  /** The snapshot index this change sits at (an insert goes before that entry). */
  readonly pos: number;
  readonly inserted: boolean;
  readonly t: Touched;
}

function writeIndexed(ix: SnapshotIndex, touched: readonly Touched[]): Uint8Array {
  const shape = ix.shape;
  const placed: Placed[] = [];
  for (const t of touched) {
    if (t.orig >= 0) {
      if (t.value !== undefined) placed.push({ pos: t.orig, inserted: false, t });
    } else if (t.value) placed.push({ pos: -findIndexed(ix, t.key) - 1, inserted: true, t });
  }
  placed.sort((a, b) => a.pos - b.pos || (a.inserted === b.inserted ? compareRanges(a.t.key, 0, a.t.key.length, b.t.key, 0, b.t.key.length) : a.inserted ? -1 : 1));
  const { buf, entryStart } = ix;
  let body = entryStart[ix.count] - entryStart[0];
  for (const p of placed) {
    if (!p.inserted) body -= entryStart[p.pos + 1] - entryStart[p.pos];
    if (p.t.value) body += keySize(p.t.key, shape.keyKind) + valueSize(p.t.value, shape.valueKind);
  }
  const w = new ByteWriter(mlsVarintSize(body) + body);
  w.mlsVarint(body);
  let cursor = 0;
  for (const p of placed) {
    if (p.pos > cursor) w.bytes(buf.subarray(entryStart[cursor], entryStart[p.pos]));
    if (p.t.value) {
      writeKey(w, p.t.key, shape.keyKind);
      if (shape.valueKind === 'bytes') w.vBytes(p.t.value);
    }
    cursor = p.inserted ? p.pos : p.pos + 1;
  }
  if (cursor < ix.count) w.bytes(buf.subarray(entryStart[cursor], entryStart[ix.count]));
  return w.finish();
}
