/**
 * The dictionary's `applyCommit` and the decoders under it. Inputs, from valid group and DM dictionaries and valid
 * AppDataUpdate proposals: proposal lists with a mutated proposal, well-formed proposals with a mutated payload (the
 * delta and value decoders), a mutated dictionary under valid proposals (with the field and user-data readers),
 * mutated collection bytes through `decodeDelta` / `decodeSnapshot`, and mutated component metadata through its
 * three decoders and `runOperation('apply')`.
 *
 * `applyCommit` must return a value for every input (any throw, even a `DictionaryError`, is a failure); a rejection
 * is one `CommitRejectedError` with code `COMMIT_REJECTED` (counted here by its internal reason), and an accepted
 * commit yields a dictionary that decodes and, when the pre-commit one passed, still passes `validateWelcome`.
 * The decoders may throw `DictionaryError` only.
 */
import {
  applyCommit,
  type ApplyResult,
  type CollectionShape,
  componentKey,
  CommitRejectedError,
  decodeAppDataUpdate,
  decodeComponentMetadata,
  decodeDelta,
  decodeDictionary,
  decodeMembershipEntry,
  decodeOneshotMessage,
  decodeSnapshot,
  describeFields,
  DictionaryError,
  encodeAppDataUpdate,
  encodeComponentMetadata,
  hashKey,
  ID,
  readUserData,
  runOperation,
  SHAPES,
  validateWelcome,
} from '../../../../lib/dictionary';
import { ALICE, appEntry, BOB, delta, dmBytes, groupBytes, hex, inbox, update, utf8 } from '../../../lib/dictionary/fixtures';
import { type FuzzRng, hexPreview, mutateBytes } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';

export type CommitInput =
  | { kind: 'commit'; dictionary: Uint8Array; proposals: Uint8Array[]; actor: string; external: boolean; readers: boolean }
  | { kind: 'collection'; bytes: Uint8Array; shape: CollectionShape }
  | { kind: 'entry'; bytes: Uint8Array; dictionary: Uint8Array; actor: string; operation: boolean };

function dictionaryOwn(err: unknown): string | undefined {
  return err instanceof DictionaryError ? err.code : undefined;
}

/** Runs one decoder; true when it accepted, false for its own error, anything else propagates. */
function decodes(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (err) {
    if (dictionaryOwn(err) === undefined) throw err;
    return false;
  }
}

export const applyCommitTarget: FuzzTarget<CommitInput> = {
  name: 'apply-commit',
  about: 'applyCommit (must return, never throw) and the dictionary decoders (DictionaryError only) on mutated dictionaries, proposals and payloads',
  own: dictionaryOwn,
  start(rng: FuzzRng): FuzzSession<CommitInput> {
    const appDefs = [0xc001, 0xc002].map((id, i) => ({
      id,
      name: `f${i}`,
      componentType: i === 0 ? 3 : 7,
      permissions: appEntry(1).permissions as { insert: never; update: never; delete: never },
      inGroups: true,
      inDms: true,
    }));
    const dictionaries = [groupBytes({ definitions: appDefs, description: 'd', appData: '{}' }), dmBytes()];
    const proposalSeeds: Uint8Array[] = [
      update(ID.GROUP_NAME, utf8('Kitchen')),
      update(ID.ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'insert', key: inbox(BOB) }])),
      update(ID.SUPER_ADMIN_LIST, delta(SHAPES.setInbox, [{ type: 'remove_by_hash', hash: hashKey(inbox(ALICE), SHAPES.setInbox) }, { type: 'insert', key: inbox(BOB) }])),
      update(ID.GROUP_MEMBERSHIP, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(BOB), value: hex('0a020801') }])),
      update(ID.USER_DISPLAY_NAME, delta(SHAPES.mapInboxBytes, [{ type: 'insert', key: inbox(ALICE), value: utf8('Alice') }])),
      update(0xc001, delta(SHAPES.mapBytesBytes, [{ type: 'insert', key: utf8('k'), value: utf8('v') }, { type: 'update', key: utf8('k'), value: utf8('w') }])),
      update(ID.COMPONENT_REGISTRY, delta(SHAPES.registry, [{ type: 'insert', key: componentKey(0xc0aa), value: encodeComponentMetadata(appEntry(2)) }])),
      update(ID.MESSAGE_DISAPPEAR_IN_NS, hex('0000000000000010')),
      update(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('1.2.3')),
      encodeAppDataUpdate({ componentId: ID.GROUP_DESCRIPTION, op: 'remove' }),
    ];
    const payloadSeeds = proposalSeeds.map((p) => decodeAppDataUpdate(p));
    const entrySeed = encodeComponentMetadata({ ...appEntry(2), externalCommitterPermissions: appEntry(1).permissions });
    const shapes: CollectionShape[] = Object.values(SHAPES);
    const validBase = new Set(dictionaries);
    const tally = { commitsApplied: 0, commitsRejected: 0 };
    const reasons = new Set<string>();
    let i = 0;

    const record = (r: ApplyResult, preValid: boolean): Verdict => {
      if (r.ok) {
        tally.commitsApplied++;
        // An accepted commit keeps the identity a joiner needs (immutables and the registry cannot go).
        if (preValid && !validateWelcome(r.bytes).ok) throw new FuzzInvariantError('an accepted commit made a dictionary validateWelcome refuses');
        decodeDictionary(r.bytes);
        return { accepted: true };
      }
      if (!(r.error instanceof CommitRejectedError) || r.error.code !== 'COMMIT_REJECTED') throw new FuzzInvariantError(`a rejection that is not COMMIT_REJECTED: ${String(r.error)}`);
      tally.commitsRejected++;
      reasons.add(r.error.reason);
      return { accepted: false, code: r.error.reason };
    };

    return {
      next: (): CommitInput => {
        const base = rng.pick(dictionaries);
        const actor = rng.chance(0.7) ? ALICE : BOB;
        switch (i++ % 6) {
          case 0:
          case 1: {
            // A proposal list with a mutated proposal (mutated bytes, before decoding).
            const list = Array.from({ length: 1 + rng.below(3) }, () => rng.pick(proposalSeeds));
            list[rng.below(list.length)] = mutateBytes(rng, rng.pick(list), proposalSeeds);
            return { kind: 'commit', dictionary: base, proposals: list, actor, external: rng.chance(0.1), readers: false };
          }
          case 2: {
            // A well-formed proposal whose payload is mutated: reaches the delta and value decoders.
            const seed = rng.pick(payloadSeeds);
            const p = seed.op === 'update' ? encodeAppDataUpdate({ ...seed, update: mutateBytes(rng, seed.update) }) : proposalSeeds[0];
            return { kind: 'commit', dictionary: base, proposals: [p, rng.pick(proposalSeeds)], actor, external: false, readers: false };
          }
          case 3:
            // A mutated dictionary under a valid proposal, and the readers over it.
            return { kind: 'commit', dictionary: mutateBytes(rng, base, dictionaries), proposals: [rng.pick(proposalSeeds)], actor, external: false, readers: rng.chance(0.25) };
          case 4: {
            const seed = rng.pick(payloadSeeds);
            return { kind: 'collection', bytes: mutateBytes(rng, seed.op === 'update' ? seed.update : base), shape: rng.pick(shapes) };
          }
          default:
            return { kind: 'entry', bytes: mutateBytes(rng, entrySeed), dictionary: base, actor, operation: rng.chance(0.25) };
        }
      },
      feed: (input): Verdict => {
        if (input.kind === 'commit') {
          let r: ApplyResult;
          try {
            r = applyCommit(input.dictionary, input.proposals, input.actor, { external: input.external });
          } catch (err) {
            if (err instanceof DictionaryError) throw new FuzzInvariantError(`applyCommit threw ${err.code} instead of returning a rejection`);
            throw err;
          }
          if (input.readers) {
            decodes(() => describeFields(input.dictionary));
            decodes(() => readUserData(input.dictionary));
          }
          return record(r, validBase.has(input.dictionary) || validateWelcome(input.dictionary).ok);
        }
        if (input.kind === 'collection') {
          const a = decodes(() => decodeDelta(input.bytes, input.shape, 'f'));
          const b = decodes(() => decodeSnapshot(input.bytes, input.shape, 'f'));
          return a || b ? { accepted: true } : { accepted: false, code: 'COLLECTION_REFUSED' };
        }
        const accepted = [decodeComponentMetadata, decodeMembershipEntry, decodeOneshotMessage].map((decode) => decodes(() => decode(input.bytes))).some(Boolean);
        if (input.operation) decodes(() => runOperation('apply', { dictionary: input.dictionary, proposals: [input.bytes], actor: input.actor }));
        return accepted ? { accepted: true } : { accepted: false, code: 'ENTRY_REFUSED' };
      },
      show: (input) => {
        if (input.kind === 'commit') {
          return `commit dictionary ${hexPreview(input.dictionary, 48)} proposals [${input.proposals.map((p) => hexPreview(p, 48)).join(', ')}] actor ${input.actor.slice(0, 8)}… external ${input.external}`;
        }
        return `${input.kind} ${hexPreview(input.bytes)}`;
      },
      figures: () => ({ ...tally, distinctReasons: reasons.size }),
    };
  },
};
