/**
 * The router's view of who it can reach: every connected peer of every radio, keyed `radioId/peerId`, with the
 * peer's mesh address when its radio learnt it. Which of them a frame goes to is `relayTargets` of lib/mesh.
 */
import type { RadioPeer } from './radios/radio';

export interface Neighbour {
  key: string;
  radioId: string;
  peer: RadioPeer;
}

export class NeighbourTable {
  private readonly byKey = new Map<string, Neighbour>();
  private sorted: Neighbour[] | undefined;

  static key(radioId: string, peerId: string): string {
    return `${radioId}/${peerId}`;
  }

  upsert(radioId: string, peer: RadioPeer): void {
    const key = NeighbourTable.key(radioId, peer.id);
    if (!peer.connected) {
      this.remove(radioId, peer.id);
      return;
    }
    this.byKey.set(key, { key, radioId, peer: { ...peer } });
    this.sorted = undefined;
  }

  remove(radioId: string, peerId: string): void {
    if (this.byKey.delete(NeighbourTable.key(radioId, peerId))) this.sorted = undefined;
  }

  removeRadio(radioId: string): void {
    for (const n of [...this.byKey.values()]) if (n.radioId === radioId) this.byKey.delete(n.key);
    this.sorted = undefined;
  }

  get(radioId: string, peerId: string): Neighbour | undefined {
    return this.byKey.get(NeighbourTable.key(radioId, peerId));
  }

  get size(): number {
    return this.byKey.size;
  }

  all(): Neighbour[] {
    if (!this.sorted) this.sorted = [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return this.sorted;
  }

  /** Neighbours whose verified address is `address` (a recipient one hop away). */
  withAddress(address: string): Neighbour[] {
    return this.all().filter((n) => n.peer.address === address);
  }
}
