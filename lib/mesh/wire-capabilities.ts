/**
 * Codec negotiation (mesh-reference-facts.md §3 "Codec choice"): the only advertisement is the `wire_versions` list
 * in the JSON body of a `__MLS_KEY_PKG__` message, and a peer is binary-capable exactly when that list contains 1.
 * The list is hop-local (which frames the peer itself decodes), so a caller consults it for a neighbour, never for
 * the far end of a route. Like the reference it is kept in memory only, bounded, and emptied when full; the frame
 * should have passed the control gate first (key packages are signed control content).
 */
import { isAck } from './ack';
import type { MeshMessage } from './message';

export const KEY_PACKAGE_PREFIX = '__MLS_KEY_PKG__';
export const WIRE_CAPABILITIES_CAPACITY = 4096;

/**
 * The `wire_versions` a key package message advertises: `[]` when the body has no such field (an older peer: JSON
 * only), `undefined` when this is no key package or its body is not the JSON object it must be (nothing learned).
 * Entries that are not byte values are ignored, as a lenient reader of a list of u8 would refuse only them.
 */
export function advertisedWireVersions(message: MeshMessage): number[] | undefined {
  if (isAck(message) || !message.content.startsWith(KEY_PACKAGE_PREFIX)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(message.content.slice(KEY_PACKAGE_PREFIX.length));
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const list = (body as { wire_versions?: unknown }).wire_versions;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return undefined;
  return [...new Set(list.filter((v): v is number => Number.isInteger(v) && v >= 0 && v <= 255))].sort((a, b) => a - b);
}

/** What each sender last advertised, by address. */
export class WireCapabilities {
  readonly #byAddress = new Map<string, readonly number[]>();

  constructor(private readonly capacity = WIRE_CAPABILITIES_CAPACITY) {}

  /** Learns from `message` if it is a key package; returns the versions it advertised, if any. */
  learn(message: MeshMessage): readonly number[] | undefined {
    const versions = advertisedWireVersions(message);
    if (versions === undefined) return undefined;
    if (!this.#byAddress.has(message.sender) && this.#byAddress.size >= this.capacity) this.#byAddress.clear();
    this.#byAddress.set(message.sender, versions);
    return versions;
  }

  /** True or false once `address` advertised (binary v1 in its list or not), `undefined` before. */
  binary(address: string): boolean | undefined {
    return this.#byAddress.get(address)?.includes(1);
  }

  get size(): number {
    return this.#byAddress.size;
  }
}
