/**
 * The key package body: the JSON after `__MLS_KEY_PKG__`, parsed whole (the reference's
 * docs/spec/capability-negotiation.md; vectors in key-package-v1.vectors.json).
 *
 * A key package is the one frame that carries every capability a peer has, so its reader is the most lenient in the
 * protocol: an absent list or an explicit `null` is the empty list (the floor), an unknown field is ignored, and a
 * list entry that is not a byte value is dropped rather than failing the frame, as a reader of a list of u8 would
 * refuse only it. Refusing any of these would make a newer peer unable to tell us what it speaks. What is refused
 * is what no version ever wrote: a body that is not a JSON object, a `user_id` that is not a string, key bytes that
 * are not a list of bytes, a lifetime or stamp that is not an integer of its width, a list that is not a list.
 *
 * Each list is a set of versions read independently (`data_versions: [1,2,3]` is three levels, not one), returned
 * deduplicated and ascending so two spellings of one advertisement compare equal.
 */
import { isAck } from './ack';
import { MeshDecodeError } from './errors';
import { JsonObject, parseJson, type JsonValue } from './json-parse';
import type { MeshMessage } from './message';

export const KEY_PACKAGE_PREFIX = '__MLS_KEY_PKG__';

/** The capability lists a key package may carry, in the order the reference writes them. */
export const KEY_PACKAGE_VERSION_LISTS = Object.freeze([
  'wire_versions',
  'env_versions',
  'rich_versions',
  'data_versions',
  'ctrl_versions',
  'svc_versions',
  'ack_versions',
] as const);

export type KeyPackageVersionList = (typeof KEY_PACKAGE_VERSION_LISTS)[number];

export type KeyPackageCapabilities = { readonly [K in KeyPackageVersionList]: readonly number[] };

export interface KeyPackage extends KeyPackageCapabilities {
  user_id: string;
  /** The MLS key package bytes, opaque here. */
  key_package_data: Uint8Array;
  /** 0 when absent (a peer that predates the field). */
  remaining_lifetime_ms: bigint;
  timestamp_ms: bigint;
  session_reset: boolean;
  /** Absent and `null` are the same on the way in. */
  nostr_pubkey: string | null;
}

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

function bad(field: string, message: string): MeshDecodeError {
  return new MeshDecodeError('BAD_KEY_PACKAGE', `key package ${field}: ${message}`, { field });
}

function integer(value: JsonValue, field: string, min: bigint, max: bigint): bigint {
  if (typeof value !== 'number' && typeof value !== 'bigint') throw bad(field, 'not an integer');
  const n = BigInt(value);
  if (n < min || n > max) throw bad(field, 'out of range');
  return n;
}

function versions(value: JsonValue, field: string): number[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw bad(field, 'not a list');
  const kept = new Set<number>();
  for (const v of value) if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255) kept.add(v);
  return [...kept].sort((a, b) => a - b);
}

function bytes(value: JsonValue, field: string): Uint8Array {
  if (!Array.isArray(value)) throw bad(field, 'not a list of bytes');
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw bad(field, `entry ${i} is not a byte`);
    out[i] = v;
  }
  return out;
}

/**
 * Parses a key package body (UTF-8 bytes or text, without the prefix). Throws `MeshDecodeError`: `BAD_KEY_PACKAGE`
 * for a body that is not the object it must be, or whatever code the strict JSON reader gives for text that is not
 * JSON (a repeated field is refused there, as the reference's reader refuses it).
 */
export function parseKeyPackage(body: Uint8Array | string): KeyPackage {
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const doc = parseJson(raw, 0, raw.length, 'key package');
  if (!(doc instanceof JsonObject)) throw bad('body', 'not a JSON object');
  const seen = new Set<string>();
  const out: { -readonly [K in keyof KeyPackage]?: KeyPackage[K] } = {};
  for (let i = 0; i < doc.keys.length; i++) {
    const key = doc.keys[i];
    const value = doc.values[i];
    if (seen.has(key)) throw bad(key, 'repeated');
    seen.add(key);
    switch (key) {
      case 'user_id':
        if (typeof value !== 'string') throw bad(key, 'not a string');
        out.user_id = value;
        break;
      case 'key_package_data':
        out.key_package_data = bytes(value, key);
        break;
      case 'remaining_lifetime_ms':
        out.remaining_lifetime_ms = integer(value, key, 0n, U64_MAX);
        break;
      case 'timestamp_ms':
        out.timestamp_ms = integer(value, key, I64_MIN, I64_MAX);
        break;
      case 'session_reset':
        if (typeof value !== 'boolean') throw bad(key, 'not a boolean');
        out.session_reset = value;
        break;
      case 'nostr_pubkey':
        if (value !== null && typeof value !== 'string') throw bad(key, 'not a string');
        out.nostr_pubkey = value;
        break;
      default:
        if ((KEY_PACKAGE_VERSION_LISTS as readonly string[]).includes(key)) out[key as KeyPackageVersionList] = versions(value, key);
      // Any other field is from a later release: ignored, so that release can still reach us.
    }
  }
  if (out.user_id === undefined) throw bad('user_id', 'missing');
  if (out.key_package_data === undefined) throw bad('key_package_data', 'missing');
  return {
    user_id: out.user_id,
    key_package_data: out.key_package_data,
    remaining_lifetime_ms: out.remaining_lifetime_ms ?? 0n,
    timestamp_ms: out.timestamp_ms ?? 0n,
    session_reset: out.session_reset ?? false,
    wire_versions: out.wire_versions ?? [],
    env_versions: out.env_versions ?? [],
    rich_versions: out.rich_versions ?? [],
    data_versions: out.data_versions ?? [],
    ctrl_versions: out.ctrl_versions ?? [],
    svc_versions: out.svc_versions ?? [],
    ack_versions: out.ack_versions ?? [],
    nostr_pubkey: out.nostr_pubkey ?? null,
  };
}

/**
 * The key package a message carries: `undefined` when it is no key package (an ACK, other content), the parsed
 * body otherwise. A key package whose body does not parse throws, so a caller can count it as refused.
 */
export function keyPackageOf(message: MeshMessage): KeyPackage | undefined {
  if (isAck(message) || !message.content.startsWith(KEY_PACKAGE_PREFIX)) return undefined;
  return parseKeyPackage(message.content.slice(KEY_PACKAGE_PREFIX.length));
}

/** Only the capability lists of a key package, e.g. for a peer table. */
export function keyPackageCapabilities(p: KeyPackage): KeyPackageCapabilities {
  const out = {} as { [K in KeyPackageVersionList]: readonly number[] };
  for (const list of KEY_PACKAGE_VERSION_LISTS) out[list] = p[list];
  return out;
}
