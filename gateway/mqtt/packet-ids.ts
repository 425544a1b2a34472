/**
 * MQTT packet identifiers for one connection, shared by mqtt.js (its subscribes and own publishes, as its
 * `messageIdProvider`) and the gateway's own publish path, so the two never hold the same id at once. An id is
 * free again when its acknowledgement arrives. mqtt.js's default provider only counts up and would hand out an id
 * still waiting for its PUBACK after 65 535 others.
 */
import type { IClientOptions } from 'mqtt';

type MessageIdProvider = NonNullable<IClientOptions['messageIdProvider']>;

const LAST_ID = 65_535;

export class PacketIds implements MessageIdProvider {
  private readonly used = new Uint8Array(LAST_ID + 1);
  private next = 1;
  private last: number | null = null;
  private count = 0;

  /** Ids allocated and not yet released. */
  get inUse(): number {
    return this.count;
  }

  /** The next free id after the last one handed out, or null when all 65 535 are in use. */
  allocate(): number | null {
    if (this.count === LAST_ID) return null;
    let id = this.next;
    while (this.used[id] === 1) id = id === LAST_ID ? 1 : id + 1;
    this.used[id] = 1;
    this.count += 1;
    this.next = id === LAST_ID ? 1 : id + 1;
    this.last = id;
    return id;
  }

  getLastAllocated(): number | null {
    return this.last;
  }

  /** Marks `id` used (a packet resent from a stored session); false when it already was. */
  register(id: number): boolean {
    if (id < 1 || id > LAST_ID || this.used[id] === 1) return false;
    this.used[id] = 1;
    this.count += 1;
    return true;
  }

  deallocate(id: number): void {
    if (id < 1 || id > LAST_ID || this.used[id] === 0) return;
    this.used[id] = 0;
    this.count -= 1;
  }

  clear(): void {
    this.used.fill(0);
    this.count = 0;
  }
}
