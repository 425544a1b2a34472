/**
 * Reading committed values (META-041, META-070): one field, a batch in request order, or one key of a map,
 * each ref resolved by component id against the listed fields (META-069) of the one dictionary given.
 */
import { findKey } from './collections';
import { type Dictionary, type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { fieldEntries, type FieldValue, label, scalarOf, type Scalar, valueOf } from './field-values';
import { describeFields, type FieldCatalogue, type FieldDescription, type FieldRef, type FieldRefInput, resolveField } from './fields';
import { parseInboxId } from './inbox-id';
import { ID } from './well-known';

export interface ReadOptions {
  readonly catalogue?: FieldCatalogue;
}

export function readField(dictionary: DictionaryInput, ref: FieldRefInput, options: ReadOptions = {}): { ref: FieldRef; value: FieldValue } {
  return readFields(dictionary, [ref], options)[0];
}

export function readFields(dictionary: DictionaryInput, refs: readonly FieldRefInput[], options: ReadOptions = {}): { ref: FieldRef; value: FieldValue }[] {
  const dict = toDictionary(dictionary);
  const fields = describeFields(dict, options.catalogue);
  return refs.map((ref) => {
    const field = resolveField(fields, ref);
    return { ref: field.ref, value: valueOf(field, dict.get(field.ref.id)) };
  });
}

/** One key of a map field: an inbox id (text or bytes) for inbox-keyed maps, bytes for byte-keyed ones. */
export function readMapKey(dictionary: DictionaryInput, ref: FieldRefInput, key: string | Uint8Array, options: ReadOptions = {}): Scalar | undefined {
  const dict = toDictionary(dictionary);
  const field = resolveField(describeFields(dict, options.catalogue), ref);
  if (field.shape.kind !== 'map') throw new DictionaryError('NOT_A_MAP', `field ${label(field)} is not a map`);
  const raw = dict.get(field.ref.id);
  if (raw === undefined) return undefined;
  const k = mapKeyBytes(field, key);
  const entries = fieldEntries(field, raw);
  const at = findKey(entries, k);
  return at < 0 ? undefined : scalarOf(entries[at].value, field.shape.value === 'string', label(field));
}

export function mapKeyBytes(field: FieldDescription, key: string | Uint8Array): Uint8Array {
  const shape = field.shape;
  if ((shape.kind === 'map' || shape.kind === 'set') && shape.key === 'inbox_id') return parseInboxId(key, `${label(field)} key`);
  if (typeof key === 'string') throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} has byte-string keys; give bytes`);
  return key;
}

export interface GroupMetadata {
  readonly groupName: string;
  readonly description: string;
  readonly imageUrl: string;
  readonly appData: string;
}

/** META-041: the four free-text settings, an absent one as the empty string (no registry entry needed to read). */
export function readGroupMetadata(dictionary: DictionaryInput): GroupMetadata {
  const dict: Dictionary = toDictionary(dictionary);
  const text = (id: number): string => {
    const raw = dict.get(id);
    return raw === undefined ? '' : scalarOf(raw, true, `component 0x${id.toString(16)}`).value as string;
  };
  return { groupName: text(ID.GROUP_NAME), description: text(ID.GROUP_DESCRIPTION), imageUrl: text(ID.GROUP_IMAGE_URL), appData: text(ID.APP_DATA) };
}
