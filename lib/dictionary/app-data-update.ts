/**
 * The AppDataUpdate proposal (draft-ietf-mls-extensions §4.7, proposal type 0x0008):
 * `struct { uint16 component_id; AppDataUpdateOperation op; select (op) { case update: opaque update<V>;
 * case remove: struct{}; }; } AppDataUpdate;` with `invalid(0), update(1), remove(2)`.
 *
 * Also the proposal-list rule the draft sets and GMOD-030 enforces: for one component id, either exactly one
 * Remove or one or more Updates.
 */
import { ByteReader } from './byte-reader';
import { ByteWriter, mlsVarintSize } from './byte-writer';
import { DictionaryError } from './errors';

export type AppDataUpdate =
  | { readonly componentId: number; readonly op: 'update'; readonly update: Uint8Array }
  | { readonly componentId: number; readonly op: 'remove' };

export const OP_UPDATE = 1;
export const OP_REMOVE = 2;

export function decodeAppDataUpdate(bytes: Uint8Array, context = 'AppDataUpdate'): AppDataUpdate {
  const r = new ByteReader(bytes, context);
  const componentId = r.u16('component id');
  const op = r.u8('operation');
  let out: AppDataUpdate;
  if (op === OP_UPDATE) out = { componentId, op: 'update', update: r.vBytes('update') };
  else if (op === OP_REMOVE) out = { componentId, op: 'remove' };
  else throw new DictionaryError('UNKNOWN_OPERATION', `${context}: operation ${op} is not update(1) or remove(2)`, { componentId });
  r.expectEnd('proposal');
  return out;
}

export function encodeAppDataUpdate(p: AppDataUpdate): Uint8Array {
  if (!Number.isInteger(p.componentId) || p.componentId < 0 || p.componentId > 0xffff) {
    throw new DictionaryError('INVALID_ARGUMENT', `component id ${p.componentId} is not a uint16`);
  }
  if (p.op === 'remove') return new ByteWriter(3).u16(p.componentId).u8(OP_REMOVE).finish();
  return new ByteWriter(3 + mlsVarintSize(p.update.length) + p.update.length).u16(p.componentId).u8(OP_UPDATE).vBytes(p.update).finish();
}

/** The first id whose proposals break the list rule, with why; `undefined` when the list is valid. */
export function proposalListProblem(proposals: readonly AppDataUpdate[]): { componentId: number; problem: string } | undefined {
  const seen = new Map<number, 'update' | 'remove'>();
  for (const p of proposals) {
    const before = seen.get(p.componentId);
    if (before === undefined) seen.set(p.componentId, p.op);
    else if (before === 'remove' && p.op === 'remove') return { componentId: p.componentId, problem: 'two Removes for one component' };
    else if (before !== p.op) return { componentId: p.componentId, problem: 'an Update and a Remove for one component' };
  }
  return undefined;
}
