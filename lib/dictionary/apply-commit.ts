/**
 * `applyCommit`: the AppDataUpdate proposals of one commit against the pre-commit dictionary
 * (group-metadata-dictionary.md §3 with META-003, 004, 010–017, 030, 040, 064, 068).
 *
 * Authority always comes from the pre-commit registry and role lists (PERM-010); successive Updates of one
 * component apply to successive snapshots (META-064). Work happens on a copy of the component map, so any failure
 * returns a rejection and nothing is applied. Every rejection has the one code `COMMIT_REJECTED` (what the sender
 * sees) with an internal `reason` and `rule`.
 */
import { isValidUtf8 } from '../bytes';
import { type AppDataUpdate, decodeAppDataUpdate, proposalListProblem } from './app-data-update';
import { authorizeWrite, type AuthorizationResult, type Writer } from './authorization';
import { metadataFieldChanges, type MetadataFieldChange } from './changes';
import { componentIdOfKey, decodeSnapshot, encodeSnapshot, type Entry } from './collections';
import { isImmutable, isInComponentSpace, isReserved } from './component-ids';
import { applyDelta, decodeDelta, type KeyHasher, mutationAction, type Mutation, type WriteAction } from './delta';
import { type Dictionary, type DictionaryInput, encodeDictionary, toDictionary } from './dictionary';
import { CODE_RULES, CommitRejectedError, DictionaryError } from './errors';
import { GroupView } from './group-view';
import { type InboxIdInput, parseInboxId } from './inbox-id';
import { registryEntryProblem, registryKeyProblem } from './registry-rules';
import { compareSemVer, parseNormalVersion } from './semver';
import { applyDeltaIndexed, indexSnapshot, type SnapshotIndex } from './indexed-snapshot';
import { validateCollection, validateIndexed, validateScalar } from './validate-value';
import { type ComponentDefinition, ConversationType, definitionFor, GLOBAL_VALUE_LIMIT_BYTES, ID } from './well-known';

export interface ApplyOptions {
  /** The commit is an MLS external commit: external_committer_permissions apply (unset = deny). */
  readonly external?: boolean;
  /** For tests only: the key hash `remove_by_hash` resolves with. */
  readonly hasher?: KeyHasher;
}

export interface AppliedCommit {
  readonly ok: true;
  /** The post-commit dictionary; untouched values are the pre-commit views, unchanged. */
  readonly dictionary: Map<number, Uint8Array>;
  /** Its AppDataDictionary encoding. */
  readonly bytes: Uint8Array;
  /** GroupUpdated.metadata_field_changes (META-040). */
  readonly changes: MetadataFieldChange[];
  /** Component ids the commit wrote or removed, ascending. */
  readonly touched: number[];
}

export interface RejectedCommit {
  readonly ok: false;
  readonly error: CommitRejectedError;
}

export type ApplyResult = AppliedCommit | RejectedCommit;

export type ProposalInput = Uint8Array | AppDataUpdate;

/** The encoding of an empty collection, what a delta applies to when its component is absent. */
const EMPTY_SNAPSHOT = Uint8Array.of(0);

/** Thrown inside the apply loop and caught once at the top, where it becomes the returned rejection. */
function reject(reason: string, rule: string, message: string, details?: Record<string, unknown>): never {
  throw new CommitRejectedError(reason, rule, message, details);
}

function fromDecodeError(err: DictionaryError, stage: string, details: Record<string, unknown>): CommitRejectedError {
  return new CommitRejectedError(err.code, CODE_RULES[err.code] ?? 'META-010', err.message, { stage, ...details }, { cause: err });
}

export function applyCommit(
  preCommitDictionary: DictionaryInput,
  proposals: readonly ProposalInput[],
  actor: InboxIdInput,
  options: ApplyOptions = {},
): ApplyResult {
  const writer: Writer = { actor: parseInboxId(actor, 'actor'), external: options.external === true };
  let pre: Dictionary;
  try {
    pre = toDictionary(preCommitDictionary);
  } catch (err) {
    if (!(err instanceof DictionaryError)) throw err;
    return { ok: false, error: fromDecodeError(err, 'pre-commit dictionary', {}) };
  }
  const decoded: AppDataUpdate[] = [];
  for (let i = 0; i < proposals.length; i++) {
    const p = proposals[i];
    try {
      decoded.push(p instanceof Uint8Array ? decodeAppDataUpdate(p, `proposal ${i}`) : p);
    } catch (err) {
      if (!(err instanceof DictionaryError)) throw err;
      return { ok: false, error: fromDecodeError(err, 'proposal', { proposal: i }) };
    }
  }
  const listProblem = proposalListProblem(decoded);
  if (listProblem) {
    return {
      ok: false,
      error: new CommitRejectedError('PROPOSAL_LIST_INVALID', 'GMOD-030', `component 0x${listProblem.componentId.toString(16)}: ${listProblem.problem}`, {
        componentId: listProblem.componentId,
      }),
    };
  }
  try {
    return new CommitApplier(pre, writer, options.hasher).run(decoded);
  } catch (err) {
    if (err instanceof CommitRejectedError) return { ok: false, error: err };
    throw err;
  }
}

class CommitApplier {
  private readonly view: GroupView;
  private readonly working: Map<number, Uint8Array>;
  private readonly touched = new Set<number>();
  private readonly immutableWritten = new Set<number>();

  constructor(
    private readonly pre: Dictionary,
    private readonly writer: Writer,
    private readonly hasher: KeyHasher | undefined,
  ) {
    this.view = new GroupView(pre);
    this.working = new Map(pre);
  }

  run(proposals: readonly AppDataUpdate[]): AppliedCommit {
    for (let i = 0; i < proposals.length; i++) {
      const p = proposals[i];
      try {
        this.applyOne(p, i);
      } catch (err) {
        if (err instanceof DictionaryError && !(err instanceof CommitRejectedError)) {
          throw fromDecodeError(err, p.op === 'update' ? 'payload' : 'remove', { proposal: i, componentId: p.componentId });
        }
        throw err;
      }
    }
    this.crossChecks();
    let bytes: Uint8Array;
    try {
      bytes = encodeDictionary(this.working);
    } catch (err) {
      if (err instanceof DictionaryError) throw fromDecodeError(err, 'post-commit dictionary', {});
      throw err;
    }
    return {
      ok: true,
      dictionary: this.working,
      bytes,
      changes: metadataFieldChanges(this.pre, this.working),
      touched: [...this.touched].sort((a, b) => a - b),
    };
  }

  private applyOne(p: AppDataUpdate, index: number): void {
    const id = p.componentId;
    const at = { proposal: index, componentId: id };
    const hex = `0x${id.toString(16).toUpperCase().padStart(4, '0')}`;
    if (isReserved(id)) reject('COMPONENT_ID_RESERVED', 'META-003', `${hex} is in the reserved range`, at);
    if (!isInComponentSpace(id)) reject('COMPONENT_ID_OUTSIDE_SPACE', 'META-003', `${hex} is outside the component space`, at);
    if (isImmutable(id)) {
      if (p.op === 'remove') reject('IMMUTABLE_COMPONENT', 'META-004', `${hex} is immutable and cannot be removed`, at);
      if (this.pre.has(id) || this.immutableWritten.has(id)) {
        reject('IMMUTABLE_COMPONENT', 'META-004', `${hex} is immutable and already has its value`, at);
      }
      this.immutableWritten.add(id);
    }
    if (p.op === 'remove') {
      this.remove(id, hex, at);
      return;
    }
    const def = definitionFor(id, this.view.registryType(id));
    if (!def) {
      const entry = this.view.registryEntry(id);
      if (!entry) reject('NO_REGISTRY_ENTRY', 'PERM-012', `${hex} has no registry entry`, at);
      if (!entry.metadata) reject('NO_REGISTRY_ENTRY', 'PERM-012', `${hex}'s registry entry is not usable (${entry.problem})`, at);
      reject('UNSUPPORTED_TYPE', 'META-010', `${hex}'s registry type ${entry.metadata.componentType} is unknown or unspecified`, at);
    }
    if (def.layout.kind === 'scalar') this.updateScalar(def, p.update, hex, at);
    else this.updateCollection(def, p.update, hex, at);
    this.touched.add(id);
  }

  private remove(id: number, hex: string, at: Record<string, unknown>): void {
    if (id === ID.COMPONENT_REGISTRY) reject('REGISTRY_REMOVED', 'META-015', 'COMPONENT_REGISTRY cannot be removed', at);
    if (id === ID.MIN_SUPPORTED_PROTOCOL_VERSION) reject('VERSION_FLOOR_REMOVED', 'GMOD-026', 'the version floor cannot be removed', at);
    if (!this.working.has(id)) reject('COMPONENT_ABSENT', 'META-010', `${hex} is absent and cannot be removed`, at);
    this.authorize(id, 'delete', at);
    this.working.delete(id);
    this.touched.add(id);
  }

  private updateScalar(def: ComponentDefinition, value: Uint8Array, hex: string, at: Record<string, unknown>): void {
    const prior = this.working.get(def.id);
    this.authorize(def.id, prior === undefined ? 'insert' : 'update', at);
    validateScalar(def, value);
    if (def.id === ID.MIN_SUPPORTED_PROTOCOL_VERSION && prior !== undefined) {
      const before = parseNormalVersion(Buffer.from(prior).toString('latin1'));
      const after = parseNormalVersion(Buffer.from(value).toString('latin1'));
      if (before && after && compareSemVer(after, before) < 0) {
        reject('VERSION_FLOOR_LOWERED', 'GMOD-026', `${hex}: the version floor cannot go down`, at);
      }
    }
    this.working.set(def.id, value);
  }

  private updateCollection(def: ComponentDefinition, payload: Uint8Array, hex: string, at: Record<string, unknown>): void {
    if (def.layout.kind !== 'collection') return;
    const shape = def.layout.shape;
    const name = def.name ?? hex;
    const prior = this.working.get(def.id);
    // Byte-string and inbox keys take the offset-indexed path; the registry's component keys the entry path.
    const indexed = shape.keyKind !== 'component';
    let ix: SnapshotIndex | undefined;
    let snapshot: Entry[] = [];
    try {
      if (indexed) ix = indexSnapshot(prior ?? EMPTY_SNAPSHOT, shape, `${name} snapshot`);
      else if (prior !== undefined) snapshot = decodeSnapshot(prior, shape, `${name} snapshot`);
    } catch (err) {
      if (err instanceof DictionaryError) throw fromDecodeError(err, 'snapshot', at);
      throw err;
    }
    const mutations = decodeDelta(payload, shape, `${name} delta`);
    if (def.immutable && mutations.some((m) => m.type !== 'insert')) {
      reject('IMMUTABLE_COMPONENT', 'META-004', `${hex} is immutable: its first value is an insert-only delta`, at);
    }
    const options = { hasher: this.hasher, onMutation: this.mutationCheck(def, name, at) };
    if (ix) {
      const bytes = applyDeltaIndexed(ix, mutations, `${name} delta`, options);
      validateIndexed(def, indexSnapshot(bytes, shape, `${name} result`));
      this.working.set(def.id, bytes);
      return;
    }
    const result = applyDelta(snapshot, mutations, shape, `${name} delta`, options);
    const encoded = encodeSnapshot(result, shape);
    validateCollection(def, result, encoded.length);
    this.working.set(def.id, encoded);
  }

  /** Authorization and per-mutation value checks, run before each mutation is applied. */
  private mutationCheck(def: ComponentDefinition, name: string, at: Record<string, unknown>): (m: Mutation, key: Uint8Array, i: number) => void {
    const allowed = new Map<WriteAction, AuthorizationResult>();
    const stringValues = def.layout.kind === 'collection' && def.layout.stringValues;
    return (m, key, i) => {
      const action = mutationAction(m);
      // Built only for a rejection: an object spread per mutation costs more than the mutation itself.
      const where = (): Record<string, unknown> => ({ ...at, mutation: i });
      const value = 'value' in m ? m.value : undefined;
      if (def.registry) this.checkRegistryMutation(componentIdOfKey(key), action, value, where);
      else {
        let auth = allowed.get(action);
        if (!auth) {
          auth = authorizeWrite(this.view, def.id, action, this.writer);
          allowed.set(action, auth);
        }
        if (!auth.ok) reject(auth.reason, auth.rule, auth.message, where());
      }
      if (def.globalBounds && (key.length > GLOBAL_VALUE_LIMIT_BYTES || (value !== undefined && value.length > GLOBAL_VALUE_LIMIT_BYTES))) {
        reject('GLOBAL_BOUND_EXCEEDED', 'META-068', `${name}: mutation ${i} has a key or value longer than ${GLOBAL_VALUE_LIMIT_BYTES} bytes`, where());
      }
      if (stringValues && value !== undefined && !isValidUtf8(value)) {
        reject('UTF8_INVALID', 'META-010', `${name}: mutation ${i} carries a value that is not valid UTF-8`, where());
      }
    };
  }

  private checkRegistryMutation(keyId: number, action: WriteAction, value: Uint8Array | undefined, where: () => Record<string, unknown>): void {
    const keyProblem = registryKeyProblem(keyId, action);
    if (keyProblem) reject(keyProblem.reason, keyProblem.rule, keyProblem.message, where());
    const auth = authorizeWrite(this.view, ID.COMPONENT_REGISTRY, action, this.writer, keyId);
    if (!auth.ok) reject(auth.reason, auth.rule, auth.message, where());
    if (value !== undefined) {
      const entryProblem = registryEntryProblem(keyId, value);
      if (entryProblem) reject(entryProblem.reason, entryProblem.rule, entryProblem.message, where());
    }
  }

  private authorize(id: number, action: WriteAction, at: Record<string, unknown>): void {
    const auth = authorizeWrite(this.view, id, action, this.writer);
    if (!auth.ok) reject(auth.reason, auth.rule, auth.message, at);
  }

  /** Rules across components, checked on the post-commit state. */
  private crossChecks(): void {
    const after = new GroupView(this.working);
    const type = after.conversationType();
    if ((this.touched.has(ID.DM_MEMBERS) || this.touched.has(ID.CONVERSATION_TYPE)) && this.working.has(ID.DM_MEMBERS) && type !== ConversationType.DM) {
      reject('DM_PAIR_INVALID', 'META-030', 'DM_MEMBERS is present but CONVERSATION_TYPE is not CONVERSATION_TYPE_DM', { componentId: ID.DM_MEMBERS });
    }
    if (this.touched.has(ID.SUPER_ADMIN_LIST) && type !== ConversationType.DM) {
      const admins = after.superAdminCount();
      if (admins === 0) reject('SUPER_ADMINS_EMPTY', 'PERM-004', 'the commit leaves the group without a super admin', { componentId: ID.SUPER_ADMIN_LIST });
    }
  }
}
