/**
 * The mesh control downgrade ratchet (lib/mesh/control-gate.ts) kept in the gateway's store: which senders have signed
 * a control frame with `offline-ctrl-v2`. On disk because a restart that forgot it would accept their v1 frames again,
 * which is the downgrade the ratchet exists to close.
 */
import type { ControlRatchet } from '../lib/mesh/control-gate';
import type { Store } from '../lib/store';

const KEY_PREFIX = 'mesh.ctrl-v2:';

export class StoredControlRatchet implements ControlRatchet {
  // Every signed control frame asks; the answer only ever changes from no to yes, so a yes is kept in memory.
  readonly #proven = new Set<string>();

  constructor(private readonly kv: Store['kv']) {}

  provenV2(address: string): boolean {
    if (this.#proven.has(address)) return true;
    if (this.kv.get(KEY_PREFIX + address) === undefined) return false;
    this.#proven.add(address);
    return true;
  }

  recordV2(address: string): void {
    this.kv.set(KEY_PREFIX + address, '1');
    this.#proven.add(address);
  }
}
