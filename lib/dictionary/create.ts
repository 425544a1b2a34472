/**
 * The epoch-0 dictionary of a new group, DM or sync group (META-002, META-018, META-066), and the
 * RequiredCapabilities extension that must list the dictionary's extension and proposal types.
 *
 * The result is checked by the same validators that judge a Welcome and a commit, so a creator can never write
 * what a joiner would reject.
 */
import crypto from 'node:crypto';
import { utf8Encode } from '../bytes';
import { ByteWriter, mlsVarintSize } from './byte-writer';
import { definitionEntry, type FieldDefinition, isEligible } from './catalogue';
import { componentKey, encodeSnapshot, EMPTY_BYTES, type Entry, SHAPES, sortedEntries } from './collections';
import { APP_DATA_DICTIONARY_EXTENSION_TYPE, APP_DATA_UPDATE_PROPOSAL_TYPE } from './component-ids';
import { encodeComponentMetadata } from './component-metadata';
import { type ConversationKind, coreRegistryEntries } from './default-policies';
import { encodeDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { encodeInboxId, type InboxIdInput, parseInboxId } from './inbox-id';
import { int64Bytes } from './int64';
import { validateStored } from './validate-value';
import { ConversationType, definitionFor, ID } from './well-known';
import { validateWelcome } from './welcome';
import { encodeMembershipEntry } from './xmtp-messages';

export interface CreateConversationOptions {
  readonly kind: ConversationKind;
  /** The creator's own inbox id. */
  readonly creator: InboxIdInput;
  /** The other member of a DM (required for `dm`, refused otherwise). */
  readonly dmPeer?: InboxIdInput;
  readonly name?: string;
  readonly description?: string;
  readonly imageUrl?: string;
  readonly appData?: string;
  /** Both or neither (META-052 reads them as a pair). */
  readonly disappearing?: { readonly fromNs: bigint; readonly inNs: bigint };
  /** The version floor; defaults to `DEFAULT_MIN_SUPPORTED_PROTOCOL_VERSION`. */
  readonly minSupportedProtocolVersion?: string;
  /** FORK-010's signing key (32 bytes); generated when absent, omitted when `null`. */
  readonly commitLogSigner?: Uint8Array | null;
  /** The backend catalogue snapshot; eligible definitions are registered (META-066). */
  readonly definitions?: readonly FieldDefinition[];
  /** GMOD-005 sequence id of the creator's membership entry (default 0). */
  readonly creatorSequenceId?: bigint;
  /** More types for RequiredCapabilities, beside the two the dictionary needs. */
  readonly requiredCapabilities?: { extensionTypes?: readonly number[]; proposalTypes?: readonly number[]; credentialTypes?: readonly number[] };
}

export const DEFAULT_MIN_SUPPORTED_PROTOCOL_VERSION = '1.0.0';

export interface RequiredCapabilities {
  readonly extensionTypes: readonly number[];
  readonly proposalTypes: readonly number[];
  readonly credentialTypes: readonly number[];
  /** RFC 9420 §7.2 encoding: three `uint16 <V>` vectors. */
  readonly bytes: Uint8Array;
}

export interface CreatedConversation {
  readonly dictionary: Map<number, Uint8Array>;
  /** The AppDataDictionary extension bytes. */
  readonly bytes: Uint8Array;
  readonly requiredCapabilities: RequiredCapabilities;
}

const KIND_TYPES: Record<ConversationKind, number> = { group: ConversationType.GROUP, dm: ConversationType.DM, sync: ConversationType.SYNC };

export function createConversation(options: CreateConversationOptions): CreatedConversation {
  const kind = options.kind;
  if (!(kind in KIND_TYPES)) throw new DictionaryError('INVALID_ARGUMENT', `kind must be group, dm or sync, got '${String(kind)}'`);
  const creator = parseInboxId(options.creator, 'creator');
  const peer = options.dmPeer === undefined ? undefined : parseInboxId(options.dmPeer, 'dm peer');
  if (kind === 'dm' && !peer) throw new DictionaryError('INVALID_ARGUMENT', 'a DM needs dmPeer, the other inbox id');
  if (kind !== 'dm' && peer) throw new DictionaryError('INVALID_ARGUMENT', 'dmPeer is only for a DM');
  if (peer && Buffer.compare(peer, creator) === 0) throw new DictionaryError('INVALID_ARGUMENT', 'a DM pair is two different inbox ids');

  const c = new Map<number, Uint8Array>();
  c.set(ID.COMPONENT_REGISTRY, registrySnapshot(kind, options.definitions ?? []));
  // PERM-002 makes the creator the group's super admin; a DM has no roles (DMS-002), its pair carries authority.
  c.set(ID.SUPER_ADMIN_LIST, encodeSnapshot(kind === 'dm' ? [] : [{ key: creator, value: EMPTY_BYTES }], SHAPES.setInbox));
  c.set(ID.ADMIN_LIST, encodeSnapshot([], SHAPES.setInbox));
  const members: Entry[] = [{ key: creator, value: encodeMembershipEntry(options.creatorSequenceId ?? 0n) }];
  if (peer) members.push({ key: peer, value: encodeMembershipEntry(0n) });
  c.set(ID.GROUP_MEMBERSHIP, encodeSnapshot(sortedEntries(members, 'GROUP_MEMBERSHIP'), SHAPES.mapInboxBytes));
  setString(c, ID.GROUP_NAME, options.name);
  setString(c, ID.GROUP_DESCRIPTION, options.description);
  setString(c, ID.GROUP_IMAGE_URL, options.imageUrl);
  setString(c, ID.APP_DATA, options.appData);
  if (options.disappearing) {
    c.set(ID.MESSAGE_DISAPPEAR_FROM_NS, int64Bytes(options.disappearing.fromNs, 'disappearing.fromNs'));
    c.set(ID.MESSAGE_DISAPPEAR_IN_NS, int64Bytes(options.disappearing.inNs, 'disappearing.inNs'));
  }
  setString(c, ID.MIN_SUPPORTED_PROTOCOL_VERSION, options.minSupportedProtocolVersion ?? DEFAULT_MIN_SUPPORTED_PROTOCOL_VERSION);
  const signer = options.commitLogSigner === undefined ? new Uint8Array(crypto.randomBytes(32)) : options.commitLogSigner;
  if (signer !== null) c.set(ID.COMMIT_LOG_SIGNER, signer);
  c.set(ID.CONVERSATION_TYPE, Uint8Array.of(0, 0, 0, KIND_TYPES[kind]));
  c.set(ID.CREATOR_INBOX_ID, encodeInboxId(creator));
  if (peer) c.set(ID.DM_MEMBERS, encodeSnapshot(sortedEntries([{ key: creator, value: EMPTY_BYTES }, { key: peer, value: EMPTY_BYTES }], 'DM_MEMBERS'), SHAPES.setInbox));

  for (const [id, value] of c) {
    const def = definitionFor(id, undefined);
    if (def) validateStored(def, value);
  }
  const bytes = encodeDictionary(c);
  const welcome = validateWelcome(bytes);
  if (!welcome.ok) throw welcome.error;
  return { dictionary: c, bytes, requiredCapabilities: requiredCapabilities(options.requiredCapabilities) };
}

function setString(c: Map<number, Uint8Array>, id: number, value: string | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new DictionaryError('INVALID_ARGUMENT', `component 0x${id.toString(16)} takes a string`);
  c.set(id, utf8Encode(value));
}

function registrySnapshot(kind: ConversationKind, definitions: readonly FieldDefinition[]): Uint8Array {
  const entries: Entry[] = coreRegistryEntries(kind).map((e) => ({
    key: componentKey(e.id),
    value: encodeComponentMetadata({ componentType: e.componentType, permissions: e.permissions }),
  }));
  const seen = new Set(entries.map((e) => (e.key[0] << 8) | e.key[1]));
  for (const def of definitions) {
    if (seen.has(def.id) || !isEligible(def, kind)) continue;
    seen.add(def.id);
    entries.push({ key: componentKey(def.id), value: definitionEntry(def) });
  }
  return encodeSnapshot(sortedEntries(entries, 'COMPONENT_REGISTRY'), SHAPES.registry);
}

export function requiredCapabilities(extra: CreateConversationOptions['requiredCapabilities'] = {}): RequiredCapabilities {
  const ext = uniqueUint16([APP_DATA_DICTIONARY_EXTENSION_TYPE, ...(extra.extensionTypes ?? [])], 'extension type');
  const prop = uniqueUint16([APP_DATA_UPDATE_PROPOSAL_TYPE, ...(extra.proposalTypes ?? [])], 'proposal type');
  const cred = uniqueUint16([...(extra.credentialTypes ?? [])], 'credential type');
  const size = (list: number[]): number => mlsVarintSize(list.length * 2) + list.length * 2;
  const w = new ByteWriter(size(ext) + size(prop) + size(cred));
  for (const list of [ext, prop, cred]) {
    w.mlsVarint(list.length * 2);
    for (const t of list) w.u16(t);
  }
  return { extensionTypes: ext, proposalTypes: prop, credentialTypes: cred, bytes: w.finish() };
}

function uniqueUint16(values: readonly number[], what: string): number[] {
  const out: number[] = [];
  for (const v of values) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new DictionaryError('INVALID_ARGUMENT', `${what} ${v} is not a uint16`);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}
