/**
 * The nine operations of the `dictionary-apply` node (and the JSON side of `clawling dict`), from a JSON-friendly
 * request to a JSON-friendly result: bytes travel as Buffers/Uint8Arrays or hex, nanoseconds as decimal strings
 * (JSON has no 64-bit integers), strings as strings. One place so the node and the CLI cannot disagree.
 */
import { toHex } from '../bytes';
import { applyCommit } from './apply-commit';
import { createConversation } from './create';
import { type ConversationKind } from './default-policies';
import { computeExpiry, isExpired, prepareDisappearingSettings, readDisappearingSettings, type StoredMessageKind } from './disappearing';
import { type Dictionary } from './dictionary';
import { type FieldCatalogue, describeFields, type FieldRefInput } from './fields';
import { parseInboxId } from './inbox-id';
import { toInt64 } from './int64';
import {
  bytesInput,
  componentIdInput,
  definitionInput,
  fieldDescriptionToJson,
  fieldRefToJson,
  fieldValueToJson,
  invalid,
  parseDictionaryInput,
  parseProposalInput,
  scalarToJson,
} from './json-form';
import { readFields, readMapKey } from './read';
import { readUserData, prepareUserDataWrite } from './user-data';
import { ConversationType } from './well-known';
import { validateWelcome } from './welcome';
import { type FieldWrite, prepareFieldWrite, type PreparedWrite } from './write';
import { type MetadataFieldChange } from './changes';

export const OPERATIONS = [
  'create',
  'apply',
  'describe',
  'read',
  'read-user-data',
  'write',
  'write-user-data',
  'validate-welcome',
  'expiry',
] as const;

export type OperationName = (typeof OPERATIONS)[number];

export function isOperationName(value: unknown): value is OperationName {
  return typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value);
}

export interface ChangeJson {
  readonly field_name: string;
  readonly old_value: string | null;
  readonly new_value: string | null;
}

export interface OperationResult {
  /** JSON-safe result (no bigint, no Buffer). */
  readonly payload: Record<string, unknown>;
  /** One readable line. */
  readonly summary: string;
  /** The new dictionary (create, apply). */
  readonly dictionary?: Uint8Array;
  /** AppDataUpdate proposals to commit, in order (write, write-user-data). */
  readonly proposals?: Uint8Array[];
  /** GroupUpdated metadata changes (apply). */
  readonly changes?: ChangeJson[];
}

export type OperationRequest = Readonly<Record<string, unknown>>;

export function changesToJson(changes: readonly MetadataFieldChange[]): ChangeJson[] {
  return changes.map((c) => ({ field_name: c.fieldName, old_value: c.oldValue ?? null, new_value: c.newValue ?? null }));
}

export function runOperation(operation: OperationName, request: OperationRequest): OperationResult {
  switch (operation) {
    case 'create':
      return create(request);
    case 'apply':
      return apply(request);
    case 'describe': {
      const dict = dictionaryOf(request);
      const fields = describeFields(dict, catalogueOf(request));
      return { payload: { fields: fields.map(fieldDescriptionToJson) }, summary: `${fields.length} field(s)` };
    }
    case 'read':
      return read(request);
    case 'read-user-data': {
      const dict = dictionaryOf(request);
      const users = readUserData(dict, {
        fields: optionalList(request.fields, 'fields') as FieldRefInput[] | undefined,
        inboxIds: optionalList(request.inbox_ids, 'inbox_ids') as string[] | undefined,
        catalogue: catalogueOf(request),
      });
      return {
        payload: {
          users: users.map((u) => ({ inbox_id: u.inboxId, values: u.values.map((v) => ({ field: fieldRefToJson(v.ref), value: scalarToJson(v.value) })) })),
        },
        summary: `${users.length} inbox(es)`,
      };
    }
    case 'write':
      return write(request);
    case 'write-user-data': {
      const dict = dictionaryOf(request);
      const values = optionalList(request.values, 'values') ?? [];
      const writes = prepareUserDataWrite(
        dict,
        actorOf(request),
        values.map((v, i) => {
          if (typeof v !== 'object' || v === null) throw invalid(`values[${i}]`, 'expected {field, value}');
          const r = v as Record<string, unknown>;
          return { field: r.field as FieldRefInput, value: r.value === null || r.value === undefined ? null : valueInput(r.value, `values[${i}].value`) };
        }),
        { catalogue: catalogueOf(request), external: request.external === true },
      );
      return proposalsResult(writes);
    }
    case 'validate-welcome':
      return welcome(request);
    case 'expiry':
      return expiry(request);
    default:
      throw invalid('operation', `unknown operation '${String(operation)}'`);
  }
}

function dictionaryOf(request: OperationRequest): Dictionary {
  if (request.dictionary === undefined) throw invalid('dictionary', 'required for this operation');
  return parseDictionaryInput(request.dictionary);
}

function actorOf(request: OperationRequest): Uint8Array {
  if (request.actor === undefined) throw invalid('actor', 'required: the committer inbox id (64 hex characters)');
  return parseInboxId(request.actor as string, 'actor');
}

function catalogueOf(request: OperationRequest): FieldCatalogue | undefined {
  const list = optionalList(request.catalogue ?? request.definitions, 'catalogue');
  return list?.map((d, i) => {
    const r = d as Record<string, unknown>;
    if (typeof r?.name !== 'string') throw invalid(`catalogue[${i}].name`, 'expected a string');
    return { id: componentIdInput(r.id, `catalogue[${i}].id`), name: r.name };
  });
}

function optionalList(value: unknown, where: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid(where, 'expected a list');
  return value;
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(where, 'expected a string');
  return value;
}

/** A field value: a string stays a string; bytes come as a Buffer, {hex} or {base64}. */
function valueInput(value: unknown, where: string): string | Uint8Array {
  return typeof value === 'string' ? value : bytesInput(value, where);
}

function create(request: OperationRequest): OperationResult {
  const kind = (request.kind ?? 'group') as ConversationKind;
  const hasFrom = request.disappear_from_ns !== undefined && request.disappear_from_ns !== null;
  const hasIn = request.disappear_in_ns !== undefined && request.disappear_in_ns !== null;
  if (hasFrom !== hasIn) throw invalid('disappear_from_ns', 'give both disappearing settings or neither');
  const created = createConversation({
    kind,
    creator: parseInboxId(request.creator as string, 'creator'),
    dmPeer: request.dm_peer === undefined ? undefined : parseInboxId(request.dm_peer as string, 'dm_peer'),
    name: optionalString(request.name, 'name'),
    description: optionalString(request.description, 'description'),
    imageUrl: optionalString(request.image_url, 'image_url'),
    appData: optionalString(request.app_data, 'app_data'),
    disappearing: hasFrom
      ? { fromNs: toInt64(request.disappear_from_ns, 'disappear_from_ns'), inNs: toInt64(request.disappear_in_ns, 'disappear_in_ns') }
      : undefined,
    minSupportedProtocolVersion: optionalString(request.min_supported_protocol_version, 'min_supported_protocol_version'),
    commitLogSigner: request.commit_log_signer === undefined ? undefined : bytesInput(request.commit_log_signer, 'commit_log_signer', true),
    definitions: optionalList(request.definitions, 'definitions')?.map((d, i) => definitionInput(d, `definitions[${i}]`)),
  });
  const name = optionalString(request.name, 'name');
  return {
    payload: {
      dictionary: toHex(created.bytes),
      required_capabilities: toHex(created.requiredCapabilities.bytes),
      kind,
    },
    summary: `created ${kind}${name ? ` '${name}'` : ''} (${created.dictionary.size} components, ${created.bytes.length} bytes)`,
    dictionary: created.bytes,
  };
}

function apply(request: OperationRequest): OperationResult {
  const dict = dictionaryOf(request);
  const list = optionalList(request.proposals, 'proposals');
  if (!list) throw invalid('proposals', 'required: the AppDataUpdate proposals in commit order');
  const proposals = list.map((p, i) => parseProposalInput(p, `proposals[${i}]`));
  const result = applyCommit(dict, proposals, actorOf(request), { external: request.external === true });
  if (!result.ok) throw result.error;
  const changes = changesToJson(result.changes);
  return {
    payload: {
      dictionary: toHex(result.bytes),
      changes,
      touched: result.touched.map((id) => `0x${id.toString(16).toUpperCase().padStart(4, '0')}`),
    },
    summary: summarizeChanges(changes, result.touched),
    dictionary: result.bytes,
    changes,
  };
}

export function summarizeChanges(changes: readonly ChangeJson[], touched: readonly number[]): string {
  if (changes.length === 0) {
    return touched.length === 0 ? 'no change' : `no recorded field changed (${touched.length} component(s) written)`;
  }
  const show = (v: string | null): string => (v === null ? '(absent)' : JSON.stringify(v));
  // The commit-log signer is key material: the change record carries it (META-040), a one-line summary does not.
  const line = (c: ChangeJson): string =>
    c.field_name === '_commit_log_signer' ? `${c.field_name}: ${c.new_value === null ? 'removed' : 'changed'}` : `${c.field_name}: ${show(c.old_value)} → ${show(c.new_value)}`;
  return changes.map(line).join('; ');
}

function read(request: OperationRequest): OperationResult {
  const dict = dictionaryOf(request);
  const catalogue = catalogueOf(request);
  if (request.key !== undefined) {
    if (request.field === undefined) throw invalid('field', 'a key read needs the map field');
    const key = typeof request.key === 'string' ? request.key : bytesInput(request.key, 'key');
    const value = readMapKey(dict, request.field as FieldRefInput, key, { catalogue });
    return { payload: { value: value === undefined ? null : scalarToJson(value) }, summary: value === undefined ? 'key absent' : 'key present' };
  }
  const refs = (optionalList(request.fields, 'fields') ?? (request.field === undefined ? undefined : [request.field])) as FieldRefInput[] | undefined;
  if (!refs) throw invalid('fields', 'give field or fields');
  const values = readFields(dict, refs, { catalogue });
  return {
    payload: { values: values.map((v) => ({ field: fieldRefToJson(v.ref), value: fieldValueToJson(v.value) })) },
    summary: `${values.length} value(s)`,
  };
}

function write(request: OperationRequest): OperationResult {
  const dict = dictionaryOf(request);
  const actor = actorOf(request);
  const options = { catalogue: catalogueOf(request), external: request.external === true };
  if (request.field === 'disappearing' || request.field === 'disappearing_settings') {
    const clear = request.value === null || request.op === 'remove';
    const v = request.value as Record<string, unknown> | undefined;
    const settings = clear ? null : { fromNs: toInt64(v?.from_ns, 'value.from_ns'), inNs: toInt64(v?.in_ns, 'value.in_ns') };
    return proposalsResult(prepareDisappearingSettings(dict, actor, settings, options));
  }
  if (request.field === undefined) throw invalid('field', 'required: the field to write');
  const op = (request.op ?? (request.key === undefined ? 'set' : 'put')) as FieldWrite['op'];
  const key = request.key === undefined ? undefined : typeof request.key === 'string' ? request.key : bytesInput(request.key, 'key');
  let w: FieldWrite;
  if (op === 'set') w = { op, value: valueInput(request.value, 'value') };
  else if (op === 'remove') w = { op };
  else if (op === 'put') w = { op, key: need(key), value: valueInput(request.value, 'value') };
  else if (op === 'delete' || op === 'add') w = { op, key: need(key) };
  else throw invalid('op', "expected set, remove, put, delete or add");
  const prepared = prepareFieldWrite(dict, request.field as FieldRefInput, w, actor, {
    ...options,
    expectedAppData: optionalString(request.expected_app_data, 'expected_app_data'),
  });
  return proposalsResult([prepared]);
}

function need(key: string | Uint8Array | undefined): string | Uint8Array {
  if (key === undefined) throw invalid('key', 'required for this op');
  return key;
}

function proposalsResult(writes: readonly PreparedWrite[]): OperationResult {
  const proposals = writes.map((w) => w.bytes);
  return {
    payload: { proposals: proposals.map(toHex), commit: proposals.length > 0 },
    summary: proposals.length === 0 ? 'nothing to commit' : `${proposals.length} proposal(s) ready to commit`,
    proposals,
  };
}

const TYPE_NAMES: Record<number, string> = {
  [ConversationType.GROUP]: 'group',
  [ConversationType.DM]: 'dm',
  [ConversationType.SYNC]: 'sync',
  [ConversationType.ONESHOT]: 'oneshot',
};

function welcome(request: OperationRequest): OperationResult {
  const result = validateWelcome(request.dictionary === undefined || request.dictionary === null ? undefined : parseWelcomeDictionary(request.dictionary), {
    joiner: request.joiner === undefined ? undefined : (request.joiner as string),
    clientVersion: optionalString(request.client_version, 'client_version'),
  });
  if (!result.ok) throw result.error;
  const payload: Record<string, unknown> = {
    ok: true,
    conversation_type: TYPE_NAMES[result.conversationType] ?? String(result.conversationType),
    creator: result.creator,
  };
  if (result.dmMembers) payload.dm_members = result.dmMembers;
  if (result.versionFloor) payload.version_floor = { ...result.versionFloor };
  const held = result.versionFloor?.paused === true;
  return { payload, summary: `welcome accepted (${payload.conversation_type})${held ? `, held: floor ${result.versionFloor?.floor}` : ''}` };
}

/** A Welcome's dictionary that does not decode is a rejection of the Welcome, not an argument error. */
function parseWelcomeDictionary(value: unknown): Uint8Array | Dictionary {
  if (value instanceof Uint8Array || typeof value === 'string') return bytesInput(value, 'dictionary', true);
  return parseDictionaryInput(value);
}

function expiry(request: OperationRequest): OperationResult {
  const settings =
    request.dictionary !== undefined
      ? readDisappearingSettings(dictionaryOf(request))
      : (() => {
          const fromNs = request.disappear_from_ns === undefined ? undefined : toInt64(request.disappear_from_ns, 'disappear_from_ns');
          const inNs = request.disappear_in_ns === undefined ? undefined : toInt64(request.disappear_in_ns, 'disappear_in_ns');
          return { fromNs, inNs, enabled: fromNs !== undefined && inNs !== undefined && fromNs > 0n && inNs > 0n };
        })();
  const kind = (request.kind ?? 'application') as StoredMessageKind;
  if (kind !== 'application' && kind !== 'membership-change') throw invalid('kind', "expected 'application' or 'membership-change'");
  const sentAt = toInt64(request.sent_at_ns, 'sent_at_ns');
  const exp = computeExpiry(settings, sentAt, kind);
  const payload: Record<string, unknown> = {
    expiry_ns: exp === undefined ? null : exp.toString(),
    settings: { from_ns: settings.fromNs?.toString() ?? null, in_ns: settings.inNs?.toString() ?? null, enabled: settings.enabled },
  };
  if (request.now_ns !== undefined) payload.expired = isExpired(exp, toInt64(request.now_ns, 'now_ns'));
  return { payload, summary: exp === undefined ? 'no expiry' : `expires at ${exp} ns` };
}
