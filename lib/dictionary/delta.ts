/**
 * TlsMapDelta / TlsSetDelta (the Update payload of a collection component) and their application (META-013).
 *
 * Mutations apply in listed order, each to the result of the previous one; repeated or unsorted keys are fine.
 * `remove_by_hash` is resolved against the snapshot *before* the delta, by SHA-256 of the key's TLS encoding, and
 * must identify exactly one key. Application works on a copy, so a failing mutation leaves the caller's snapshot
 * as it was and the whole delta is discarded.
 */
import crypto from 'node:crypto';
import { ByteReader } from './byte-reader';
import { ByteWriter, mlsVarintSize } from './byte-writer';
import { type CollectionShape, encodeKey, type Entry, findKey, keySize, readKey, valueSize, writeKey } from './collections';
import { DictionaryError } from './errors';

export type MapMutation =
  | { readonly type: 'insert' | 'update'; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly type: 'delete'; readonly key: Uint8Array };

export type SetMutation =
  | { readonly type: 'insert' | 'remove'; readonly key: Uint8Array }
  | { readonly type: 'remove_by_hash'; readonly hash: Uint8Array };

export type Mutation = MapMutation | SetMutation;

/** The permission a mutation needs (ComponentPermissions field). */
export type WriteAction = 'insert' | 'update' | 'delete';

export function mutationAction(m: Mutation): WriteAction {
  return m.type === 'insert' ? 'insert' : m.type === 'update' ? 'update' : 'delete';
}

const MAP_TYPES = ['insert', 'update', 'delete'] as const;
const SET_TYPES = ['insert', 'remove', 'remove_by_hash'] as const;

export function isSetShape(shape: CollectionShape): boolean {
  return shape.valueKind === 'empty';
}

export function decodeDelta(bytes: Uint8Array, shape: CollectionShape, context: string): Mutation[] {
  const r = new ByteReader(bytes, context);
  const body = r.vVector('mutations');
  r.expectEnd('mutations');
  const out: Mutation[] = [];
  const set = isSetShape(shape);
  while (!body.atEnd()) {
    const at = body.offset;
    const code = body.u8('mutation type');
    const type = set ? SET_TYPES[code] : MAP_TYPES[code];
    if (type === undefined) {
      throw new DictionaryError('UNKNOWN_MUTATION_TYPE', `${context}: mutation ${out.length} at offset ${at} has unknown type ${code}`, {
        mutation: out.length,
      });
    }
    if (type === 'remove_by_hash') out.push({ type, hash: body.bytes(32, 'key hash') });
    else {
      const key = readKey(body, shape.keyKind);
      if (type === 'insert' && !set) out.push({ type, key, value: body.vBytes('value') });
      else if (type === 'update') out.push({ type, key, value: body.vBytes('value') });
      else out.push({ type, key } as Mutation);
    }
  }
  return out;
}

function mutationSize(m: Mutation, shape: CollectionShape): number {
  if (m.type === 'remove_by_hash') return 33;
  let size = 1 + keySize(m.key, shape.keyKind);
  if ((m.type === 'insert' || m.type === 'update') && 'value' in m) size += valueSize(m.value, shape.valueKind);
  return size;
}

export function encodeDelta(mutations: readonly Mutation[], shape: CollectionShape): Uint8Array {
  const set = isSetShape(shape);
  let body = 0;
  for (const m of mutations) {
    checkMutationFits(m, set);
    body += mutationSize(m, shape);
  }
  const w = new ByteWriter(mlsVarintSize(body) + body);
  w.mlsVarint(body);
  for (const m of mutations) {
    w.u8((set ? SET_TYPES : MAP_TYPES).indexOf(m.type as never));
    if (m.type === 'remove_by_hash') w.bytes(m.hash);
    else {
      writeKey(w, m.key, shape.keyKind);
      if (!set && (m.type === 'insert' || m.type === 'update')) w.vBytes((m as { value: Uint8Array }).value);
    }
  }
  return w.finish();
}

function checkMutationFits(m: Mutation, set: boolean): void {
  const ok = set ? (SET_TYPES as readonly string[]).includes(m.type) : (MAP_TYPES as readonly string[]).includes(m.type);
  if (!ok) throw new DictionaryError('INVALID_ARGUMENT', `a ${set ? 'set' : 'map'} delta has no '${m.type}' mutation`);
  if (m.type === 'remove_by_hash' && m.hash.length !== 32) throw new DictionaryError('INVALID_ARGUMENT', 'a key hash has 32 bytes');
  if (!set && (m.type === 'insert' || m.type === 'update') && !('value' in m)) {
    throw new DictionaryError('INVALID_ARGUMENT', `a map ${m.type} needs a value`);
  }
}

/** SHA-256 of a key's TLS encoding, as the lookup string `remove_by_hash` resolution uses. */
export type KeyHasher = (tlsEncodedKey: Uint8Array) => string;

export const sha256KeyHasher: KeyHasher =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'base64')
    : (data) => crypto.createHash('sha256').update(data).digest('base64');

export function hashKey(key: Uint8Array, shape: CollectionShape): Uint8Array {
  return new Uint8Array(crypto.createHash('sha256').update(encodeKey(key, shape.keyKind)).digest());
}

export interface ApplyDeltaOptions {
  /** Seen before each mutation is applied, with the key it resolves to (authorization and per-key checks). */
  readonly onMutation?: (mutation: Mutation, key: Uint8Array, index: number) => void;
  /** Replaceable so a test can give two keys one hash. */
  readonly hasher?: KeyHasher;
}

/** Applies `mutations` to a copy of `snapshot` (sorted, unique) and returns the new sorted entries. */
export function applyDelta(
  snapshot: readonly Entry[],
  mutations: readonly Mutation[],
  shape: CollectionShape,
  context: string,
  options: ApplyDeltaOptions = {},
): Entry[] {
  const entries = snapshot.slice();
  let byHash: Map<string, number> | undefined;
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i];
    let key: Uint8Array;
    if (m.type === 'remove_by_hash') {
      byHash ??= indexByHash(snapshot, shape, options.hasher ?? sha256KeyHasher);
      const found = byHash.get(Buffer.from(m.hash.buffer, m.hash.byteOffset, m.hash.byteLength).toString('base64'));
      if (found === undefined || found < 0) {
        throw new DictionaryError(
          'DELTA_HASH_UNRESOLVED',
          `${context}: mutation ${i} (remove_by_hash) matches ${found === undefined ? 'no key' : 'more than one key'} of the snapshot before the delta`,
          { mutation: i },
        );
      }
      key = snapshot[found].key;
    } else key = m.key;
    options.onMutation?.(m, key, i);
    const at = findKey(entries, key);
    if (m.type === 'insert') {
      if (at >= 0) throw new DictionaryError('DELTA_INSERT_PRESENT', `${context}: mutation ${i} inserts a key that is present`, { mutation: i });
      entries.splice(-at - 1, 0, { key, value: 'value' in m ? m.value : EMPTY });
    } else if (at < 0) {
      throw new DictionaryError('DELTA_KEY_ABSENT', `${context}: mutation ${i} (${m.type}) names a key that is absent`, { mutation: i });
    } else if (m.type === 'update') entries[at] = { key, value: m.value };
    else entries.splice(at, 1);
  }
  return entries;
}

const EMPTY = new Uint8Array(0);

/** Hash → index in the snapshot; -1 marks a hash two keys share (which must not resolve). */
function indexByHash(snapshot: readonly Entry[], shape: CollectionShape, hasher: KeyHasher): Map<string, number> {
  const map = new Map<string, number>();
  for (let i = 0; i < snapshot.length; i++) {
    const h = hasher(encodeKey(snapshot[i].key, shape.keyKind));
    map.set(h, map.has(h) ? -1 : i);
  }
  return map;
}
