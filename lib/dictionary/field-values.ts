/**
 * Typed values of fields (META-070 forms): STRING and TLS_MAP_INBOX_ID_STRING values as strings, byte types as
 * bytes, maps as ordered entries, sets as ordered keys. Shared by reads and user data.
 */
import { utf8DecodeExact } from '../bytes';
import { decodeSnapshot, type Entry, SHAPES } from './collections';
import { DictionaryError } from './errors';
import { type FieldDescription } from './fields';
import { inboxIdToText } from './inbox-id';

export type Scalar = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'bytes'; readonly value: Uint8Array };

/** Map keys: inbox ids as their 64-hex text, byte-string keys as bytes. */
export type MapKey = string | Uint8Array;

export type FieldValue =
  | Scalar
  | { readonly kind: 'map'; readonly entries: readonly { readonly key: MapKey; readonly value: Scalar }[] }
  | { readonly kind: 'set'; readonly keys: readonly MapKey[] }
  | { readonly kind: 'absent' }
  /** A field whose type this client cannot interpret: its raw bytes. */
  | { readonly kind: 'unknown'; readonly raw: Uint8Array };

export function scalarOf(bytes: Uint8Array, asString: boolean, where: string): Scalar {
  if (!asString) return { kind: 'bytes', value: bytes };
  const text = utf8DecodeExact(bytes);
  if (text === undefined) throw new DictionaryError('UTF8_INVALID', `${where}: the stored value is not valid UTF-8`);
  return { kind: 'string', value: text };
}

export function fieldEntries(field: FieldDescription, raw: Uint8Array): Entry[] {
  const shape = field.shape;
  if (shape.kind !== 'map' && shape.kind !== 'set') throw new DictionaryError('NOT_A_COLLECTION', `field ${label(field)} is not a map or set`);
  const s =
    shape.kind === 'map'
      ? shape.key === 'inbox_id'
        ? SHAPES.mapInboxBytes
        : SHAPES.mapBytesBytes
      : shape.key === 'inbox_id'
        ? SHAPES.setInbox
        : SHAPES.setBytes;
  return decodeSnapshot(raw, s, label(field));
}

export function valueOf(field: FieldDescription, raw: Uint8Array | undefined): FieldValue {
  const shape = field.shape;
  if (raw === undefined) return shape.kind === 'string' ? { kind: 'string', value: '' } : { kind: 'absent' };
  switch (shape.kind) {
    case 'string':
    case 'bytes':
      return scalarOf(raw, shape.kind === 'string', label(field));
    case 'map': {
      const entries = fieldEntries(field, raw).map((e) => ({ key: keyOf(field, e.key), value: scalarOf(e.value, shape.value === 'string', label(field)) }));
      return { kind: 'map', entries };
    }
    case 'set':
      return { kind: 'set', keys: fieldEntries(field, raw).map((e) => keyOf(field, e.key)) };
    default:
      return { kind: 'unknown', raw };
  }
}

function keyOf(field: FieldDescription, key: Uint8Array): MapKey {
  const shape = field.shape;
  return (shape.kind === 'map' || shape.kind === 'set') && shape.key === 'inbox_id' ? inboxIdToText(key) : key;
}

export function label(field: FieldDescription): string {
  return field.ref.name ?? `0x${field.ref.id.toString(16).toUpperCase()}`;
}
