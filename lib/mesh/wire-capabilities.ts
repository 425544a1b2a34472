/**
 * What each neighbour advertised in its key package (the reference's docs/spec/capability-negotiation.md): the
 * whole set of capability lists, kept per sender address, parsed by `key-package.ts`.
 *
 * The only list that changes what this project emits is `wire_versions`: it is hop-local (which frames the peer
 * itself decodes), and a peer is binary-capable exactly when it contains 1, so a caller consults it for a
 * neighbour, never for the far end of a route. The other lists are kept so they can be shown and so a later
 * emitter has them; the spec forbids deciding what to *accept* from any of them. Like the reference's hop-local
 * state this table is in memory only, bounded, and emptied when full; the frame should have passed the control
 * gate first (key packages are signed control content).
 */
import { MeshDecodeError } from './errors';
import { keyPackageCapabilities, keyPackageOf, type KeyPackageCapabilities } from './key-package';
import type { MeshMessage } from './message';

export const WIRE_CAPABILITIES_CAPACITY = 4096;

/**
 * The `wire_versions` a key package message advertises: `[]` when the body has no such field (an older peer: JSON
 * only), `undefined` when this is no key package or its body does not parse (nothing learned).
 */
export function advertisedWireVersions(message: MeshMessage): number[] | undefined {
  const caps = advertisedCapabilities(message);
  return caps === undefined ? undefined : [...caps.wire_versions];
}

/** Every capability list a key package message advertises; `undefined` as for `advertisedWireVersions`. */
export function advertisedCapabilities(message: MeshMessage): KeyPackageCapabilities | undefined {
  try {
    const p = keyPackageOf(message);
    return p === undefined ? undefined : keyPackageCapabilities(p);
  } catch (err) {
    // A key package that does not parse teaches nothing; anything else is a fault of ours and must surface.
    if (err instanceof MeshDecodeError) return undefined;
    throw err;
  }
}

/** What each sender last advertised, by address. */
export class WireCapabilities {
  readonly #byAddress = new Map<string, KeyPackageCapabilities>();

  constructor(private readonly capacity = WIRE_CAPABILITIES_CAPACITY) {}

  /** Learns from `message` if it is a key package; returns what it advertised, if anything. */
  learn(message: MeshMessage): KeyPackageCapabilities | undefined {
    const caps = advertisedCapabilities(message);
    if (caps === undefined) return undefined;
    if (!this.#byAddress.has(message.sender) && this.#byAddress.size >= this.capacity) this.#byAddress.clear();
    this.#byAddress.set(message.sender, caps);
    return caps;
  }

  /** True or false once `address` advertised (binary v1 in its list or not), `undefined` before. */
  binary(address: string): boolean | undefined {
    return this.#byAddress.get(address)?.wire_versions.includes(1);
  }

  /** Everything `address` last advertised, or `undefined` before its first key package. */
  of(address: string): KeyPackageCapabilities | undefined {
    return this.#byAddress.get(address);
  }

  get size(): number {
    return this.#byAddress.size;
  }
}
