/**
 * Writing a listed field (META-071) and the APP_DATA guard (META-065). The operation is encoded under the
 * field's type (table type for a well-known id, committed registry type otherwise) and judged by the committed
 * registry policies; a missing entry, unsupported type, type mismatch or denied policy is reported with its own
 * code. Every prepared proposal is finally run through `applyCommit` on the same state, so what this returns is
 * exactly what a validating member accepts.
 */
import { utf8DecodeExact } from '../bytes';
import { applyCommit } from './apply-commit';
import { type AppDataUpdate, encodeAppDataUpdate } from './app-data-update';
import { findKey, SHAPES } from './collections';
import { encodeDelta, type Mutation, type WriteAction } from './delta';
import { type Dictionary, type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { fieldEntries, label } from './field-values';
import { describeFields, type FieldCatalogue, type FieldDescription, type FieldRefInput, resolveField } from './fields';
import { GroupView } from './group-view';
import { type InboxIdInput, parseInboxId } from './inbox-id';
import { evaluatePolicy } from './policy';
import { mapKeyBytes } from './read';
import { ID } from './well-known';

export type FieldWrite =
  | { readonly op: 'set'; readonly value: string | Uint8Array }
  | { readonly op: 'remove' }
  | { readonly op: 'put'; readonly key: string | Uint8Array; readonly value: string | Uint8Array }
  | { readonly op: 'delete'; readonly key: string | Uint8Array }
  | { readonly op: 'add'; readonly key: string | Uint8Array };

export interface WriteOptions {
  readonly external?: boolean;
  readonly catalogue?: FieldCatalogue;
  /** META-065: the APP_DATA value the new one was computed from. */
  readonly expectedAppData?: string;
}

export interface PreparedWrite {
  readonly proposal: AppDataUpdate;
  /** The AppDataUpdate proposal bytes. */
  readonly bytes: Uint8Array;
}

export function prepareFieldWrite(
  dictionary: DictionaryInput,
  ref: FieldRefInput,
  write: FieldWrite,
  actor: InboxIdInput,
  options: WriteOptions = {},
): PreparedWrite {
  const dict = toDictionary(dictionary);
  const actorId = parseInboxId(actor, 'actor');
  const field = resolveField(describeFields(dict, options.catalogue), ref);
  if (options.expectedAppData !== undefined) checkAppDataGuard(dict, field, options.expectedAppData);
  const { action, payload } = encodeWrite(dict, field, write);
  checkPolicy(dict, field, action, actorId, options.external === true);
  const proposal: AppDataUpdate = payload === undefined ? { componentId: field.ref.id, op: 'remove' } : { componentId: field.ref.id, op: 'update', update: payload };
  return finishWrites(dict, [proposal], actorId, options.external === true)[0];
}

/** Runs the proposals through `applyCommit` on `dict` and returns them with their bytes, or throws its rejection. */
export function finishWrites(dict: Dictionary, proposals: readonly AppDataUpdate[], actor: Uint8Array, external: boolean): PreparedWrite[] {
  const result = applyCommit(dict, proposals, actor, { external });
  if (!result.ok) throw result.error;
  return proposals.map((proposal) => ({ proposal, bytes: encodeAppDataUpdate(proposal) }));
}

export function checkAppDataGuard(dict: Dictionary, field: FieldDescription, expected: string): void {
  if (field.ref.id !== ID.APP_DATA) throw new DictionaryError('INVALID_ARGUMENT', 'an expected value guards APP_DATA writes only');
  const committed = dict.get(ID.APP_DATA);
  const text = committed === undefined ? undefined : utf8DecodeExact(committed);
  if (text === undefined || text !== expected) {
    throw new DictionaryError(
      'APP_DATA_GUARD_MISMATCH',
      committed === undefined ? 'APP_DATA is absent, so it equals no expected value' : 'the committed APP_DATA differs from the expected value',
    );
  }
}

export function checkPolicy(dict: Dictionary, field: FieldDescription, action: WriteAction, actor: Uint8Array, external: boolean): void {
  const policy = external ? field.externalCommitterPolicies?.[action] : field.policies[action];
  if (!evaluatePolicy(policy, new GroupView(dict).roles(actor))) {
    throw new DictionaryError('POLICY_DENIED', `the committed policy denies ${action} on ${label(field)}`, { field: label(field), action });
  }
}

function valueBytes(field: FieldDescription, value: unknown, asString: boolean): Uint8Array {
  if (asString) {
    if (typeof value !== 'string') throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} takes a string`);
    return Buffer.from(value, 'utf8');
  }
  if (!(value instanceof Uint8Array)) throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} takes bytes`);
  return value;
}

function encodeWrite(dict: Dictionary, field: FieldDescription, write: FieldWrite): { action: WriteAction; payload?: Uint8Array } {
  const shape = field.shape;
  const raw = dict.get(field.ref.id);
  if (shape.kind === 'unknown') throw new DictionaryError('UNSUPPORTED_TYPE', `field ${label(field)} has the unsupported type ${shape.typeTag}`);
  if (field.immutable && (raw !== undefined || write.op === 'remove' || write.op === 'delete')) {
    throw new DictionaryError('IMMUTABLE_COMPONENT', `field ${label(field)} is immutable`);
  }
  if (shape.kind === 'string' || shape.kind === 'bytes') {
    if (write.op === 'remove') {
      if (raw === undefined) throw new DictionaryError('COMPONENT_ABSENT', `field ${label(field)} is absent`);
      return { action: 'delete' };
    }
    if (write.op !== 'set') throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} is a ${shape.kind} value: use set or remove`);
    return { action: raw === undefined ? 'insert' : 'update', payload: valueBytes(field, write.value, shape.kind === 'string') };
  }
  const entries = raw === undefined ? [] : fieldEntries(field, raw);
  const collectionShape = SHAPES[shape.kind === 'map' ? (shape.key === 'inbox_id' ? 'mapInboxBytes' : 'mapBytesBytes') : shape.key === 'inbox_id' ? 'setInbox' : 'setBytes'];
  if (write.op === 'set' || write.op === 'remove') {
    throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} is a ${shape.kind}: use ${shape.kind === 'map' ? 'put or delete' : 'add or delete'}`);
  }
  const key = mapKeyBytes(field, write.key);
  const present = findKey(entries, key) >= 0;
  let mutation: Mutation;
  let action: WriteAction;
  if (write.op === 'delete') {
    if (!present) throw new DictionaryError('KEY_ABSENT', `field ${label(field)} has no such key`);
    mutation = shape.kind === 'map' ? { type: 'delete', key } : { type: 'remove', key };
    action = 'delete';
  } else if (shape.kind === 'map') {
    if (write.op !== 'put') throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} is a map: use put or delete`);
    const value = valueBytes(field, write.value, shape.value === 'string');
    mutation = { type: present ? 'update' : 'insert', key, value };
    action = present ? 'update' : 'insert';
  } else {
    if (write.op !== 'add') throw new DictionaryError('TYPE_MISMATCH', `field ${label(field)} is a set: use add or delete`);
    if (present) throw new DictionaryError('KEY_PRESENT', `field ${label(field)} already has that key`);
    mutation = { type: 'insert', key };
    action = 'insert';
  }
  return { action, payload: encodeDelta([mutation], collectionShape) };
}
