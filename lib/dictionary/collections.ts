/**
 * TlsMap / TlsSet snapshots (group-metadata-dictionary.md §2, "collection wire block"; META-012).
 *
 * `TlsMap<K, T>` is `TlsMapEntry entries<V>`; `TlsSet<K>` is `TlsMap<K, Empty>`. A key is held as its sort
 * bytes: a byte string's value bytes, an inbox id's 32 bytes, or a component id as two big-endian bytes, so one
 * byte-wise comparison gives the order META-012 demands for every key kind (numeric for component ids,
 * lexicographic by value bytes otherwise). A snapshot whose keys are not strictly ascending is rejected.
 */
import { compareBytes } from '../bytes';
import { ByteReader } from './byte-reader';
import { ByteWriter, mlsVarintSize, quicComponentIdSize } from './byte-writer';
import { DictionaryError } from './errors';

export type KeyKind = 'bytes' | 'inbox' | 'component';
export type ValueKind = 'bytes' | 'empty';

export interface CollectionShape {
  readonly keyKind: KeyKind;
  /** `empty` makes the collection a set. */
  readonly valueKind: ValueKind;
}

export interface Entry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

export const SHAPES = {
  mapBytesBytes: { keyKind: 'bytes', valueKind: 'bytes' },
  mapInboxBytes: { keyKind: 'inbox', valueKind: 'bytes' },
  setBytes: { keyKind: 'bytes', valueKind: 'empty' },
  setInbox: { keyKind: 'inbox', valueKind: 'empty' },
  registry: { keyKind: 'component', valueKind: 'bytes' },
} as const satisfies Record<string, CollectionShape>;

export function componentKey(id: number): Uint8Array {
  return Uint8Array.of(id >> 8, id & 0xff);
}

export function componentIdOfKey(key: Uint8Array): number {
  return (key[0] << 8) | key[1];
}

export function readKey(r: ByteReader, kind: KeyKind): Uint8Array {
  switch (kind) {
    case 'bytes':
      return r.vBytes('key');
    case 'inbox':
      return r.inboxId('key');
    default:
      return componentKey(r.quicComponentId('key'));
  }
}

export function keySize(key: Uint8Array, kind: KeyKind): number {
  switch (kind) {
    case 'bytes':
      return mlsVarintSize(key.length) + key.length;
    case 'inbox':
      return 33;
    default:
      return quicComponentIdSize(componentIdOfKey(key));
  }
}

export function writeKey(w: ByteWriter, key: Uint8Array, kind: KeyKind): void {
  if (kind === 'bytes') w.vBytes(key);
  else if (kind === 'inbox') w.inboxId(key);
  else w.quicComponentId(componentIdOfKey(key));
}

/** The key's own TLS encoding (what `remove_by_hash` hashes). */
export function encodeKey(key: Uint8Array, kind: KeyKind): Uint8Array {
  const w = new ByteWriter(keySize(key, kind));
  writeKey(w, key, kind);
  return w.finish();
}

export function valueSize(value: Uint8Array, kind: ValueKind): number {
  return kind === 'empty' ? 0 : mlsVarintSize(value.length) + value.length;
}

export function decodeSnapshot(bytes: Uint8Array, shape: CollectionShape, context: string): Entry[] {
  const r = new ByteReader(bytes, context);
  const body = r.vVector('entries');
  r.expectEnd('entries');
  const out: Entry[] = [];
  let prev: Uint8Array | undefined;
  while (!body.atEnd()) {
    const key = readKey(body, shape.keyKind);
    const value = shape.valueKind === 'bytes' ? body.vBytes('value') : EMPTY_BYTES;
    if (prev !== undefined && compareBytes(prev, key) >= 0) {
      throw new DictionaryError(
        'SNAPSHOT_NOT_CANONICAL',
        `${context}: entry ${out.length} ${compareBytes(prev, key) === 0 ? 'repeats the previous key' : 'is not in ascending key order'}`,
        { entry: out.length },
      );
    }
    out.push({ key, value });
    prev = key;
  }
  return out;
}

export function snapshotBodySize(entries: readonly Entry[], shape: CollectionShape): number {
  let size = 0;
  for (const e of entries) size += keySize(e.key, shape.keyKind) + valueSize(e.value, shape.valueKind);
  return size;
}

/** Entries must already be sorted and unique (delta application keeps them so). */
export function encodeSnapshot(entries: readonly Entry[], shape: CollectionShape): Uint8Array {
  const body = snapshotBodySize(entries, shape);
  const w = new ByteWriter(mlsVarintSize(body) + body);
  w.mlsVarint(body);
  for (const e of entries) {
    writeKey(w, e.key, shape.keyKind);
    if (shape.valueKind === 'bytes') w.vBytes(e.value);
  }
  return w.finish();
}

/** Sorts and checks uniqueness, for callers that build a snapshot from an unordered list. */
export function sortedEntries(entries: readonly Entry[], context: string): Entry[] {
  const out = [...entries].sort((a, b) => compareBytes(a.key, b.key));
  for (let i = 1; i < out.length; i++) {
    if (compareBytes(out[i - 1].key, out[i].key) === 0) {
      throw new DictionaryError('DUPLICATE_KEY', `${context}: a key appears twice`);
    }
  }
  return out;
}

/** Binary search: the index of `key`, or `-(insertion point) - 1`. */
export function findKey(entries: readonly Entry[], key: Uint8Array): number {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareBytes(entries[mid].key, key);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}
