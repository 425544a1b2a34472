/**
 * Where an owner's store file lives: one file per owner (a hub-config node, a gateway) under its state folder,
 * named after the owner so two owners never share an outbox.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { StoreError } from './errors';

/**
 * `<stateDir>/<owner>.sqlite`. An owner outside `[A-Za-z0-9._-]` is reduced to those characters and suffixed with a
 * digest of the original, so any id makes a safe file name and two different owners never map to one file.
 */
export function storeFileFor(stateDir: string, owner: string): string {
  if (typeof stateDir !== 'string' || stateDir.length === 0) throw new StoreError('STORE_BAD_ARGUMENT', 'stateDir must be a non-empty path');
  if (typeof owner !== 'string' || owner.length === 0) throw new StoreError('STORE_BAD_ARGUMENT', 'owner must be a non-empty string');
  const safe = owner.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 120);
  if (safe === owner) return path.join(stateDir, `${safe}.sqlite`);
  const digest = createHash('sha256').update(owner, 'utf8').digest('hex').slice(0, 12);
  return path.join(stateDir, `${safe}-${digest}.sqlite`);
}
