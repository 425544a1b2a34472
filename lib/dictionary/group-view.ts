/**
 * A read-only view of one dictionary with the lookups authorization and reads need (registry entries, role
 * lists, conversation type, DM pair), each decoded once on first use. Lookups never throw: a component that does
 * not decode reads as absent, so a damaged list grants nothing (fail closed) instead of failing every commit.
 */
import { decodeSnapshot, componentKey, type Entry, findKey, SHAPES } from './collections';
import { type ComponentMetadata, decodeComponentMetadata } from './component-metadata';
import { type Dictionary } from './dictionary';
import { DictionaryError } from './errors';
import { type ActorRoles } from './policy';
import { ID } from './well-known';

export interface RegistryEntryView {
  readonly raw: Uint8Array;
  /** Present when the raw bytes decode as ComponentMetadata. */
  readonly metadata?: ComponentMetadata;
  /** Why the bytes do not decode. */
  readonly problem?: string;
}

export class GroupView {
  private registryEntries: Entry[] | null | undefined;
  private readonly decodedEntries = new Map<number, RegistryEntryView>();
  private superAdmins: Entry[] | null | undefined;
  private admins: Entry[] | null | undefined;
  private dmPair: Entry[] | null | undefined;

  constructor(readonly dictionary: Dictionary) {}

  /** The registry's entries, or `null` when the registry is absent or not a valid RegistryMap. */
  registry(): readonly Entry[] | null {
    if (this.registryEntries === undefined) this.registryEntries = this.decodeSet(ID.COMPONENT_REGISTRY, SHAPES.registry);
    return this.registryEntries;
  }

  registryEntry(id: number): RegistryEntryView | undefined {
    const cached = this.decodedEntries.get(id);
    if (cached) return cached;
    const entries = this.registry();
    if (!entries) return undefined;
    const at = findKey(entries, componentKey(id));
    if (at < 0) return undefined;
    const raw = entries[at].value;
    let view: RegistryEntryView;
    try {
      view = { raw, metadata: decodeComponentMetadata(raw, `registry entry 0x${id.toString(16)}`) };
    } catch (err) {
      if (!(err instanceof DictionaryError)) throw err;
      view = { raw, problem: err.message };
    }
    this.decodedEntries.set(id, view);
    return view;
  }

  /** The registry type of `id` when its entry decodes. */
  registryType(id: number): number | undefined {
    return this.registryEntry(id)?.metadata?.componentType;
  }

  roles(actor: Uint8Array): ActorRoles {
    // `null` (absent or undecodable) is a cached answer too, so test for `undefined` rather than use `??=`.
    if (this.superAdmins === undefined) this.superAdmins = this.decodeSet(ID.SUPER_ADMIN_LIST, SHAPES.setInbox);
    if (this.admins === undefined) this.admins = this.decodeSet(ID.ADMIN_LIST, SHAPES.setInbox);
    return {
      superAdmin: this.superAdmins !== null && findKey(this.superAdmins, actor) >= 0,
      admin: this.admins !== null && findKey(this.admins, actor) >= 0,
    };
  }

  /** How many super admins the list names; 0 when it is absent or does not decode. */
  superAdminCount(): number {
    if (this.superAdmins === undefined) this.superAdmins = this.decodeSet(ID.SUPER_ADMIN_LIST, SHAPES.setInbox);
    return this.superAdmins?.length ?? 0;
  }

  /** The ConversationType value, or `undefined` when absent or not 4 bytes. */
  conversationType(): number | undefined {
    const v = this.dictionary.get(ID.CONVERSATION_TYPE);
    if (!v || v.length !== 4) return undefined;
    return ((v[0] << 24) | (v[1] << 16) | (v[2] << 8) | v[3]) >>> 0;
  }

  dmMembers(): readonly Entry[] | null {
    if (this.dmPair === undefined) this.dmPair = this.decodeSet(ID.DM_MEMBERS, SHAPES.setInbox);
    return this.dmPair;
  }

  isDmMember(actor: Uint8Array): boolean {
    const pair = this.dmMembers();
    return pair !== null && findKey(pair, actor) >= 0;
  }

  private decodeSet(id: number, shape: typeof SHAPES[keyof typeof SHAPES]): Entry[] | null {
    const v = this.dictionary.get(id);
    if (!v) return null;
    try {
      return decodeSnapshot(v, shape, `component 0x${id.toString(16)}`);
    } catch (err) {
      if (err instanceof DictionaryError) return null;
      throw err;
    }
  }
}
