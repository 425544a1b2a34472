import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deriveAddress, isAddress } from '../../lib/mesh/address';
import { IDENTITY_FILE, loadOrCreateIdentity } from '../../gateway/identity';
import { GatewayError } from '../../gateway/errors';

describe('gateway identity', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-id-')), 'state');
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('creates an Ed25519 key on first start, 0600 in a 0700 folder, and keeps it', () => {
    const first = loadOrCreateIdentity(dir);
    assert.equal(first.created, true);
    assert.ok(isAddress(first.address));
    assert.equal(first.address, deriveAddress(first.publicKey));
    const file = path.join(dir, IDENTITY_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    const again = loadOrCreateIdentity(dir);
    assert.equal(again.created, false);
    assert.equal(again.address, first.address);
    // The key signs: what it signs verifies under the public key the address was derived from.
    const sig = crypto.sign(null, Buffer.from('x'), again.privateKey);
    assert.ok(crypto.verify(null, Buffer.from('x'), crypto.createPublicKey(first.privateKey), sig));
  });

  it('tightens a key file copied in with loose permissions', () => {
    loadOrCreateIdentity(dir);
    const file = path.join(dir, IDENTITY_FILE);
    fs.chmodSync(file, 0o644);
    loadOrCreateIdentity(dir);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('refuses a damaged identity instead of silently making a new one', () => {
    loadOrCreateIdentity(dir);
    const file = path.join(dir, IDENTITY_FILE);
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...body, address: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf' }));
    assert.throws(() => loadOrCreateIdentity(dir), (e: unknown) => e instanceof GatewayError && e.code === 'IDENTITY_INVALID');
    fs.writeFileSync(file, '{not json');
    assert.throws(() => loadOrCreateIdentity(dir), (e: unknown) => e instanceof GatewayError && e.code === 'IDENTITY_INVALID');
  });
});
