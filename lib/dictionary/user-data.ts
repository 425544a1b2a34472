/**
 * User data (META-072, META-073): the is_user_field maps (InboxId-keyed) read per inbox from one committed
 * dictionary, and an app's own profile edits as Insert/Update/Delete of its own inbox key, one commit's worth.
 */
import { type AppDataUpdate } from './app-data-update';
import { decodeSnapshot, findKey, SHAPES } from './collections';
import { encodeDelta, type Mutation } from './delta';
import { type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { fieldEntries, label, scalarOf, type Scalar } from './field-values';
import { describeFields, type FieldCatalogue, type FieldDescription, type FieldRef, type FieldRefInput, resolveField } from './fields';
import { GroupView } from './group-view';
import { type InboxIdInput, inboxIdToText, parseInboxId } from './inbox-id';
import { checkPolicy, finishWrites, type PreparedWrite } from './write';
import { ConversationType, ID } from './well-known';

export interface UserDataQuery {
  /** `undefined`: every user field. */
  readonly fields?: readonly FieldRefInput[];
  /** `undefined`: the current members (GROUP_MEMBERSHIP) of a group, the DM_MEMBERS pair of a DM. */
  readonly inboxIds?: readonly InboxIdInput[];
  readonly catalogue?: FieldCatalogue;
}

export interface UserData {
  readonly inboxId: string;
  readonly values: readonly { readonly ref: FieldRef; readonly value: Scalar }[];
}

function userFields(all: readonly FieldDescription[], refs: readonly FieldRefInput[] | undefined): FieldDescription[] {
  if (refs === undefined) return all.filter((f) => f.isUserField);
  return refs.map((r) => {
    const f = resolveField(all, r);
    if (!f.isUserField) throw new DictionaryError('NOT_A_USER_FIELD', `field ${label(f)} is not a user field (a map keyed by inbox id)`);
    return f;
  });
}

export function readUserData(dictionary: DictionaryInput, query: UserDataQuery = {}): UserData[] {
  const dict = toDictionary(dictionary);
  const fields = userFields(describeFields(dict, query.catalogue), query.fields);
  let inboxes: Uint8Array[];
  if (query.inboxIds !== undefined) inboxes = query.inboxIds.map((i, n) => parseInboxId(i, `inboxIds[${n}]`));
  else {
    const view = new GroupView(dict);
    if (view.conversationType() === ConversationType.DM) inboxes = (view.dmMembers() ?? []).map((e) => e.key);
    else {
      const raw = dict.get(ID.GROUP_MEMBERSHIP);
      inboxes = raw === undefined ? [] : membershipKeys(raw);
    }
  }
  const maps = fields.map((f) => {
    const raw = dict.get(f.ref.id);
    return raw === undefined ? [] : fieldEntries(f, raw);
  });
  return inboxes.map((inbox) => {
    const values: { ref: FieldRef; value: Scalar }[] = [];
    fields.forEach((f, i) => {
      const at = findKey(maps[i], inbox);
      if (at >= 0) values.push({ ref: f.ref, value: scalarOf(maps[i][at].value, f.shape.kind === 'map' && f.shape.value === 'string', label(f)) });
    });
    return { inboxId: inboxIdToText(inbox), values };
  });
}

function membershipKeys(raw: Uint8Array): Uint8Array[] {
  return decodeSnapshot(raw, SHAPES.mapInboxBytes, 'GROUP_MEMBERSHIP').map((e) => e.key);
}

export interface UserDataValue {
  readonly field: FieldRefInput;
  /** `null` clears this inbox's value. */
  readonly value: string | Uint8Array | null;
}

/**
 * META-073: one Update per field that changes, for the actor's own key only; `[]` when there is nothing to
 * commit (no values, or only clears of absent keys).
 */
export function prepareUserDataWrite(
  dictionary: DictionaryInput,
  actor: InboxIdInput,
  values: readonly UserDataValue[],
  options: { catalogue?: FieldCatalogue; external?: boolean } = {},
): PreparedWrite[] {
  const dict = toDictionary(dictionary);
  const me = parseInboxId(actor, 'actor');
  const all = describeFields(dict, options.catalogue);
  const seen = new Set<number>();
  const proposals: AppDataUpdate[] = [];
  for (const v of values) {
    const f = resolveField(all, v.field);
    if (!f.isUserField || f.shape.kind !== 'map') throw new DictionaryError('NOT_A_USER_FIELD', `field ${label(f)} is not a user field`);
    if (seen.has(f.ref.id)) throw new DictionaryError('DUPLICATE_FIELD', `field ${label(f)} appears twice in one update`);
    seen.add(f.ref.id);
    const raw = dict.get(f.ref.id);
    const present = raw !== undefined && findKey(fieldEntries(f, raw), me) >= 0;
    let mutation: Mutation;
    if (v.value === null) {
      if (!present) continue;
      mutation = { type: 'delete', key: me };
    } else {
      const asString = f.shape.value === 'string';
      if (asString ? typeof v.value !== 'string' : !(v.value instanceof Uint8Array)) {
        throw new DictionaryError('TYPE_MISMATCH', `field ${label(f)} takes ${asString ? 'a string' : 'bytes'}`);
      }
      mutation = { type: present ? 'update' : 'insert', key: me, value: typeof v.value === 'string' ? Buffer.from(v.value, 'utf8') : v.value };
    }
    checkPolicy(dict, f, mutation.type === 'delete' ? 'delete' : mutation.type === 'update' ? 'update' : 'insert', me, options.external === true);
    proposals.push({ componentId: f.ref.id, op: 'update', update: encodeDelta([mutation], SHAPES.mapInboxBytes) });
  }
  if (proposals.length === 0) return [];
  return finishWrites(dict, proposals, me, options.external === true);
}
