/**
 * Validation of one component value under its definition (META-010 type rules and table limits, META-011,
 * META-012, META-030's pair size, META-068 global bounds). Pure checks: they throw a coded `DictionaryError`
 * and never change or re-encode the bytes they look at.
 */
import { isValidUtf8 } from '../bytes';
import { decodeSnapshot, type Entry } from './collections';
import { DictionaryError } from './errors';
import { type SnapshotIndex } from './indexed-snapshot';
import { isUtf8Range } from './utf8-range';
import { decodeInboxId } from './inbox-id';
import { parseNormalVersion } from './semver';
import { type ComponentDefinition, ConversationType, GLOBAL_SNAPSHOT_LIMIT_BYTES, GLOBAL_VALUE_LIMIT_BYTES } from './well-known';
import { decodeMembershipEntry, decodeOneshotMessage } from './xmtp-messages';

function label(def: ComponentDefinition): string {
  return def.name ?? `component 0x${def.id.toString(16).padStart(4, '0')}`;
}

export function validateScalar(def: ComponentDefinition, value: Uint8Array): void {
  const name = label(def);
  if (def.globalBounds && value.length > GLOBAL_VALUE_LIMIT_BYTES) {
    throw new DictionaryError('GLOBAL_BOUND_EXCEEDED', `${name}: ${value.length} bytes, the limit is ${GLOBAL_VALUE_LIMIT_BYTES}`);
  }
  if (def.maxBytes !== undefined && value.length > def.maxBytes) {
    throw new DictionaryError('VALUE_TOO_LONG', `${name}: ${value.length} bytes, at most ${def.maxBytes} allowed`);
  }
  if (def.exactBytes !== undefined && value.length !== def.exactBytes) {
    throw new DictionaryError('VALUE_WRONG_LENGTH', `${name}: ${value.length} bytes, exactly ${def.exactBytes} required`);
  }
  if (def.layout.kind === 'scalar' && def.layout.stringValue && !isValidUtf8(value)) {
    throw new DictionaryError('UTF8_INVALID', `${name}: not valid UTF-8`);
  }
  switch (def.check) {
    case 'semver':
      if (parseNormalVersion(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1')) === undefined) {
        throw new DictionaryError('SEMVER_INVALID', `${name}: not a Semantic Versioning 2.0.0 §2 version (X.Y.Z)`);
      }
      return;
    case 'conversation-type': {
      const v = ((value[0] << 24) | (value[1] << 16) | (value[2] << 8) | value[3]) >>> 0;
      if (v === ConversationType.UNSPECIFIED || v > ConversationType.ONESHOT) {
        throw new DictionaryError('CONVERSATION_TYPE_INVALID', `${name}: ${v} is not a defined ConversationType other than UNSPECIFIED`);
      }
      return;
    }
    case 'inbox-id':
      decodeInboxId(value, name);
      return;
    case 'oneshot':
      decodeOneshotMessage(value, name);
      return;
    default:
      return;
  }
}

/** Checks a collection snapshot's entries and its serialized size (`encodedLength`). */
export function validateCollection(def: ComponentDefinition, entries: readonly Entry[], encodedLength: number): void {
  const name = label(def);
  const layout = def.layout;
  if (layout.kind !== 'collection') throw new DictionaryError('INTERNAL', `${name} is not a collection`);
  if (def.globalBounds) {
    if (encodedLength > GLOBAL_SNAPSHOT_LIMIT_BYTES) {
      throw new DictionaryError('GLOBAL_BOUND_EXCEEDED', `${name}: snapshot of ${encodedLength} bytes, the limit is ${GLOBAL_SNAPSHOT_LIMIT_BYTES}`);
    }
    for (const e of entries) {
      if (e.key.length > GLOBAL_VALUE_LIMIT_BYTES || e.value.length > GLOBAL_VALUE_LIMIT_BYTES) {
        throw new DictionaryError('GLOBAL_BOUND_EXCEEDED', `${name}: a key or value longer than ${GLOBAL_VALUE_LIMIT_BYTES} bytes`);
      }
    }
  }
  if (layout.stringValues) {
    for (const e of entries) if (!isValidUtf8(e.value)) throw new DictionaryError('UTF8_INVALID', `${name}: a value is not valid UTF-8`);
  }
  if (def.check === 'membership-entries') {
    for (const e of entries) decodeMembershipEntry(e.value, `${name} value`);
  }
  if (def.check === 'dm-pair' && entries.length !== 2) {
    throw new DictionaryError('DM_PAIR_INVALID', `${name}: ${entries.length} inbox id(s), a DM pair has exactly two`);
  }
}

/** `validateCollection` for an indexed snapshot: the same checks, read from offsets. */
export function validateIndexed(def: ComponentDefinition, ix: SnapshotIndex): void {
  const name = label(def);
  const layout = def.layout;
  if (layout.kind !== 'collection') throw new DictionaryError('INTERNAL', `${name} is not a collection`);
  const { buf, count, keyLen, valueStart, valueLen } = ix;
  if (def.globalBounds) {
    const encoded = buf.length;
    if (encoded > GLOBAL_SNAPSHOT_LIMIT_BYTES) {
      throw new DictionaryError('GLOBAL_BOUND_EXCEEDED', `${name}: snapshot of ${encoded} bytes, the limit is ${GLOBAL_SNAPSHOT_LIMIT_BYTES}`);
    }
    for (let i = 0; i < count; i++) {
      if (keyLen[i] > GLOBAL_VALUE_LIMIT_BYTES || valueLen[i] > GLOBAL_VALUE_LIMIT_BYTES) {
        throw new DictionaryError('GLOBAL_BOUND_EXCEEDED', `${name}: a key or value longer than ${GLOBAL_VALUE_LIMIT_BYTES} bytes`);
      }
    }
  }
  if (layout.stringValues) {
    for (let i = 0; i < count; i++) {
      if (!isUtf8Range(buf, valueStart[i], valueStart[i] + valueLen[i])) throw new DictionaryError('UTF8_INVALID', `${name}: a value is not valid UTF-8`);
    }
  }
  if (def.check === 'membership-entries') {
    for (let i = 0; i < count; i++) decodeMembershipEntry(buf, `${name} value`, valueStart[i], valueStart[i] + valueLen[i]);
  }
  if (def.check === 'dm-pair' && count !== 2) {
    throw new DictionaryError('DM_PAIR_INVALID', `${name}: ${count} inbox id(s), a DM pair has exactly two`);
  }
}

/** Decodes and validates a stored value of any definition (Welcome checks, reads, creation self-check). */
export function validateStored(def: ComponentDefinition, value: Uint8Array): Entry[] | undefined {
  if (def.layout.kind === 'scalar') {
    validateScalar(def, value);
    return undefined;
  }
  const entries = decodeSnapshot(value, def.layout.shape, label(def));
  validateCollection(def, entries, value.length);
  return entries;
}
