/**
 * Shared fixtures for the dictionary tests: inbox ids, a created group/DM to start from, and builders for
 * proposals and deltas. Every adversarial case starts from one of these valid states.
 */
import assert from 'node:assert/strict';
import {
  type AppDataUpdate,
  type ApplyResult,
  type CollectionShape,
  type ComponentMetadata,
  componentKey,
  createConversation,
  type CreateConversationOptions,
  decodeDictionary,
  encodeAppDataUpdate,
  encodeComponentMetadata,
  encodeDelta,
  type Mutation,
  SHAPES,
} from '../../../lib/dictionary';
import { fromHex } from '../../../lib/bytes';

export const ALICE = 'a1'.repeat(32);
export const BOB = 'b2'.repeat(32);
export const CAROL = 'c3'.repeat(32);
export const DAVE = 'd4'.repeat(32);
export const SIGNER = new Uint8Array(32).fill(7);

export function inbox(text: string): Uint8Array {
  return fromHex(text) as Uint8Array;
}

export function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

export function hex(text: string): Uint8Array {
  const b = fromHex(text.replace(/\s+/g, ''));
  if (!b) throw new Error(`bad hex in test: ${text}`);
  return b;
}

/** A group created by ALICE named Lobby, deterministic (fixed signer). */
export function groupBytes(extra: Partial<CreateConversationOptions> = {}): Uint8Array {
  return createConversation({ kind: 'group', creator: ALICE, name: 'Lobby', commitLogSigner: SIGNER, ...extra }).bytes;
}

export function dmBytes(extra: Partial<CreateConversationOptions> = {}): Uint8Array {
  return createConversation({ kind: 'dm', creator: ALICE, dmPeer: BOB, commitLogSigner: SIGNER, ...extra }).bytes;
}

export function dict(bytes: Uint8Array): Map<number, Uint8Array> {
  return decodeDictionary(bytes);
}

export function update(componentId: number, payload: Uint8Array): Uint8Array {
  return encodeAppDataUpdate({ componentId, op: 'update', update: payload });
}

export function remove(componentId: number): Uint8Array {
  return encodeAppDataUpdate({ componentId, op: 'remove' });
}

export function proposal(p: AppDataUpdate): Uint8Array {
  return encodeAppDataUpdate(p);
}

export function delta(shape: CollectionShape, mutations: Mutation[]): Uint8Array {
  return encodeDelta(mutations, shape);
}

export function registryInsert(id: number, meta: ComponentMetadata | Uint8Array): Uint8Array {
  const value = meta instanceof Uint8Array ? meta : encodeComponentMetadata(meta);
  return update(0x8000, delta(SHAPES.registry, [{ type: 'insert', key: componentKey(id), value }]));
}

export function registryMutation(m: Mutation): Uint8Array {
  return update(0x8000, delta(SHAPES.registry, [m]));
}

/** Asserts a rejection and returns it; `reason` and `rule` are the internal codes. */
export function assertRejected(result: ApplyResult, reason: string, rule?: string): void {
  if (result.ok) assert.fail(`expected a rejection (${reason}) but the commit applied`);
  assert.equal(result.error.code, 'COMMIT_REJECTED');
  assert.equal(result.error.reason, reason, result.error.message);
  if (rule !== undefined) assert.equal(result.error.rule, rule);
}

export function assertApplied(result: ApplyResult): asserts result is Extract<ApplyResult, { ok: true }> {
  if (!result.ok) assert.fail(`expected the commit to apply, got ${result.error.reason}: ${result.error.message}`);
}

/** An application field entry with the given policies for all three actions. */
export function appEntry(componentType: number, policy: 'ALLOW' | 'DENY' | 'ALLOW_IF_ADMIN' | 'ALLOW_IF_SUPER_ADMIN' = 'ALLOW'): ComponentMetadata {
  const base = { ALLOW: 1, DENY: 2, ALLOW_IF_ADMIN: 3, ALLOW_IF_SUPER_ADMIN: 4 }[policy];
  const p = { kind: 'base', base } as const;
  return { componentType, permissions: { insert: p, update: p, delete: p } };
}

export function bytesEqualCheck(actual: Uint8Array | undefined, expected: Uint8Array, what: string): void {
  assert.ok(actual !== undefined, `${what} is missing`);
  assert.equal(Buffer.compare(Buffer.from(actual), Buffer.from(expected)), 0, `${what} changed`);
}
