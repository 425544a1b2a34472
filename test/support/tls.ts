/**
 * A private CA and a server certificate for 127.0.0.1 / localhost signed by it (EC P-256, valid for a century), made
 * once with openssl for the TLS tests and kept in test/fixtures/tls. Test material only: the key protects nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

// From dist/test/support back to the sources, where the fixtures live (the build copies no test data).
const DIR = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tls');

export const TLS_FILES = { cert_file: path.join(DIR, 'server.pem'), key_file: path.join(DIR, 'server.key') };

export function testCa(): string {
  return fs.readFileSync(path.join(DIR, 'ca.pem'), 'utf8');
}
