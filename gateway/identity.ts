/**
 * The gateway's mesh identity: an Ed25519 key created on first start and kept in the state folder (`identity.json`,
 * mode 0600, written to a temporary file and renamed so that a power cut never leaves half a key), and the `off1…`
 * address derived from its public key. The private key never leaves this module except as a `KeyObject` for signing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deriveAddress } from '../lib/mesh/address';
import { GatewayError } from './errors';
import { writeFileAtomically } from '../lib/write-atomically';

export const IDENTITY_FILE = 'identity.json';

export interface GatewayIdentity {
  address: string;
  publicKey: Uint8Array;
  privateKey: crypto.KeyObject;
  /** True when this start created the key. */
  created: boolean;
  file: string;
}

interface IdentityFile {
  version: 1;
  kind: 'ed25519';
  /** PKCS#8 DER, base64. */
  private_key: string;
  /** 32 raw bytes, hex; checked against the private key on load. */
  public_key: string;
  address: string;
}

// RFC 8410 DER wrappings of raw Ed25519 keys: PKCS#8 around the 32-byte seed, SPKI around the 32-byte public key.
const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_KEY_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

// Seed and DER only, on purpose. A first start under the unit's flags (`--single-threaded`) was seen to hang for ever
// inside `generateKeyPairSync('ed25519')` followed by a JWK export: Node's key-generation job cleanup waited on a lock
// during a garbage collection. A random seed wrapped in PKCS#8 and an SPKI export take neither path.
function newPrivateKey(): crypto.KeyObject {
  return crypto.createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, crypto.randomBytes(32)]), format: 'der', type: 'pkcs8' });
}

function rawPublicKey(key: crypto.KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'spki' });
  if (der.length !== SPKI_KEY_PREFIX.length + 32 || !der.subarray(0, SPKI_KEY_PREFIX.length).equals(SPKI_KEY_PREFIX)) {
    throw new GatewayError('IDENTITY_INVALID', 'the identity key is not an Ed25519 key');
  }
  return new Uint8Array(der.subarray(SPKI_KEY_PREFIX.length));
}

function fromPrivate(privateKey: crypto.KeyObject, file: string, created: boolean): GatewayIdentity {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new GatewayError('IDENTITY_INVALID', `${file} does not hold an Ed25519 key`);
  const publicKey = rawPublicKey(crypto.createPublicKey(privateKey));
  return { address: deriveAddress(publicKey), publicKey, privateKey, created, file };
}

/** Loads the identity from `stateDir`, creating the folder (0700) and the key on first start. */
export function loadOrCreateIdentity(stateDir: string): GatewayIdentity {
  const file = path.join(stateDir, IDENTITY_FILE);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new GatewayError('IDENTITY_READ', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`, { file });
    }
  }
  if (text === undefined) {
    const privateKey = newPrivateKey();
    const identity = fromPrivate(privateKey, file, true);
    const body: IdentityFile = {
      version: 1,
      kind: 'ed25519',
      private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      public_key: Buffer.from(identity.publicKey).toString('hex'),
      address: identity.address,
    };
    writeFileAtomically(file, JSON.stringify(body, null, 2) + '\n');
    return identity;
  }
  let parsed: IdentityFile;
  try {
    parsed = JSON.parse(text) as IdentityFile;
  } catch {
    throw new GatewayError('IDENTITY_INVALID', `${file} is not valid JSON; move it away to create a new identity`, { file });
  }
  if (parsed.version !== 1 || parsed.kind !== 'ed25519' || typeof parsed.private_key !== 'string') {
    throw new GatewayError('IDENTITY_INVALID', `${file} is not a version 1 Ed25519 identity`, { file });
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey({ key: Buffer.from(parsed.private_key, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new GatewayError('IDENTITY_INVALID', `${file} holds an unreadable private key`, { file });
  }
  const identity = fromPrivate(key, file, false);
  if (parsed.address !== identity.address) {
    throw new GatewayError('IDENTITY_INVALID', `${file}: the stored address does not match the key`, { file });
  }
  // Tighten a key file someone copied in with looser permissions.
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) fs.chmodSync(file, 0o600);
  return identity;
}
