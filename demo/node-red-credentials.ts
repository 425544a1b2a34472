/**
 * A `flows_cred.json` the way Node-RED's credential store (`@node-red/runtime/lib/nodes/credentials.js`, the same in
 * Node-RED 4 and 5) writes and reads it when `credentialSecret` is a string: `{"$": hex(iv) + base64(ciphertext)}`,
 * AES-256-CTR over the JSON of the credentials keyed by node id, with SHA-256 of the secret as the key and 16 random
 * bytes as the IV. Written so, the token never lies on disk in plain text, not even until the first deploy (Node-RED
 * would keep a plain file as it is until then).
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';

export function encryptNodeRedCredentials(credentials: Record<string, Record<string, string>>, secret: string): { $: string } {
  const key = createHash('sha256').update(secret).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return { $: iv.toString('hex') + cipher.update(JSON.stringify(credentials), 'utf8', 'base64') + cipher.final('base64') };
}
