/**
 * What this gateway can say about a recipient, from what it sees: its own address, neighbours on every radio
 * (attached devices among them) and nodes heard on the mesh. The site's other gateways and the hub are not routes
 * for a mesh frame today (docs/gateway-daemon.md), so they make nobody reachable. Submit asks
 * `reachable` (heard within `nodes.heard_window_s`); presence asks `presence`, which decays faster
 * (`daemon.presence_ttl_s`), because presence is about a moment and a verdict about an attempt.
 */
import type { MeshApi } from '../../router';

/** Heard addresses remembered at most; the oldest go first (an address is a Map key, ~100 bytes each). */
const MAX_HEARD = 20_000;

export interface Presence {
  online: boolean;
  last_seen_ms?: number;
}

export class Reachability {
  private readonly heard = new Map<string, number>();

  constructor(
    private readonly mesh: MeshApi,
    private readonly now: () => number,
    private readonly heardWindowMs: number,
    private readonly presenceTtlMs: number,
  ) {}

  noteHeard(address: string, at: number): void {
    this.heard.delete(address);
    this.heard.set(address, at);
    if (this.heard.size > MAX_HEARD) this.heard.delete(this.heard.keys().next().value as string);
  }

  /** Why `recipient` is reachable through this gateway, or undefined when it is not. */
  reachable(recipient: string): string | undefined {
    if (recipient === this.mesh.address) return 'gateway';
    if (this.isNeighbour(recipient)) return 'neighbour';
    const at = this.heard.get(recipient);
    if (at !== undefined && this.now() - at <= this.heardWindowMs) return 'heard';
    return undefined;
  }

  presence(peer: string): Presence {
    const now = this.now();
    if (peer === this.mesh.address || this.isNeighbour(peer)) return { online: true, last_seen_ms: now };
    const at = this.heard.get(peer);
    if (at === undefined) return { online: false };
    return { online: now - at <= this.presenceTtlMs, last_seen_ms: at };
  }

  private isNeighbour(address: string): boolean {
    return this.mesh.neighbours().some((n) => n.peer.connected && n.peer.address === address);
  }
}
