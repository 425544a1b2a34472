/**
 * Throughput of the mesh transport rules, all in one process: BLE fragmenting and reassembly at the two common
 * fragment sizes, chunking and reassembling a file (with its SHA-256 check), signing and gating a control message,
 * and parsing an address. Each figure is printed beside its baseline from the same run (a plain `Buffer.concat` of
 * the same bytes; a bare `crypto.verify`), so the overhead of the rules themselves is visible.
 *
 *   npm run build && node dist/bench/mesh-transport.bench.js
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import { parseAddress } from '../lib/mesh/address';
import { encodeFragments, FragmentReassembler } from '../lib/mesh/ble-fragment';
import { canonicalControlPayload } from '../lib/mesh/canonical-payload';
import { chunkFile, FileReassembler } from '../lib/mesh/chunked-file';
import { checkControlGate } from '../lib/mesh/control-gate';
import { generateControlIdentity, signControlMessage } from '../lib/mesh/control-signature';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';

function measure(label: string, iterations: number, fn: (i: number) => void, unitBytes?: number): number {
  for (let i = 0; i < Math.min(iterations, 200); i++) fn(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const ops = iterations / seconds;
  const rate = unitBytes === undefined ? '' : `  ${((ops * unitBytes) / 1048576).toFixed(1)} MiB/s`;
  console.log(`${label.padEnd(52)} ${ops.toFixed(0).padStart(10)} ops/s${rate}`);
  return ops;
}

const frame = new Uint8Array(4096).map((_, i) => (i * 31) & 0xff);
const id = MessageId.random().toString();

console.log('BLE fragments of a 4 KiB frame');
for (const size of [185, 512]) {
  const fragments = encodeFragments(frame, id, size);
  measure(`  encodeFragments @${size} (${fragments.length} writes)`, 20_000, () => encodeFragments(frame, id, size), frame.length);
  const r = new FragmentReassembler();
  const ops = measure(`  reassemble @${size}`, 20_000, () => {
    for (const f of fragments) r.push(f);
  }, frame.length);
  const parts = fragments.map((f) => f.subarray(46));
  const base = measure(`  baseline Buffer.concat of the same payloads`, 20_000, () => Buffer.concat(parts), frame.length);
  console.log(`  reassembly costs ${(base / ops).toFixed(2)}× the bare concatenation`);
}

console.log('Chunked file, 1 MiB over BLE profile (4 KiB chunks)');
const file = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 0xff);
const messages = chunkFile(file, { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'f.bin', transport: 'ble' });
measure('  chunkFile', 20, () => chunkFile(file, { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'f.bin', transport: 'ble' }), file.length);
measure('  FileReassembler (256 chunks + SHA-256)', 20, () => {
  const r = new FileReassembler();
  for (const m of messages) r.push(m);
}, file.length);

console.log('Control messages');
const identity = generateControlIdentity();
const control = createMessage({
  id: MessageId.random(),
  sender: identity.address,
  recipient: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
  app_id: 'app',
  priority: 'medium',
  ttl: 8,
  hop_count: 0,
  timestamp: 0n,
  content: '__CONN_REQ__{"hello":true}',
});
const signed = signControlMessage(control, identity.privateKey);
measure('  signControlMessage', 5_000, () => signControlMessage(control, identity.privateKey));
const gate = measure('  checkControlGate (verify + derive)', 5_000, () => checkControlGate(signed, { transport: 'ble', transportPeerId: identity.address }));
const publicKey = createPublicKey(identity.privateKey);
const payload = canonicalControlPayload(control);
const signature = sign(null, payload, identity.privateKey);
const bare = measure('  baseline crypto.verify alone', 5_000, () => verify(null, payload, publicKey, signature));
console.log(`  the gate costs ${(bare / gate).toFixed(2)}× a bare verification`);

console.log('Addresses');
measure('  parseAddress', 100_000, () => parseAddress('off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn'));
