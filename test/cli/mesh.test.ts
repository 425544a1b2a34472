/**
 * `clawling mesh` as users run it: the compiled CLI in a child process, stdin in, stdout and stderr out.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { decodeFragment, encodeFragments } from '../../lib/mesh/ble-fragment';
import { unsafeCharacters } from '../support/unsafe-text';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');

function mesh(args: string[], input: string | Buffer = ''): { status: number | null; stdout: Buffer; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, 'mesh', ...args], { input, maxBuffer: 16 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr.toString('utf8') };
}

const MINIMAL =
  '{"id":"00000000-0000-0000-0000-000000000000","sender":"a","recipient":"b","app_id":"c","priority":"medium","ttl":8,' +
  '"hop_count":0,"timestamp":0,"lamport_clock":0,"content_type":"text","content":"","metadata":{},"requires_ack":true,"reply_to_msg":null}';
const GOLDEN_1 = Buffer.from('f5' + '00'.repeat(16) + '016101620163' + '0108' + '00'.repeat(8) + '01' + '000000', 'hex');
const APP = { sender: 'alice', recipient: 'bob', app_id: 'home', content: 'hello' };

describe('clawling mesh', function () {
  this.timeout(30_000);

  it('prints its help with --help and exits 0, for the command and each subcommand', () => {
    const top = mesh(['--help']);
    assert.equal(top.status, 0);
    for (const sub of ['encode', 'decode', 'fragment', 'reassemble', '--jsonl', '--raw']) assert.ok(top.stdout.toString().includes(sub), sub);
    assert.equal(mesh(['encode', '--help']).status, 0);
  });

  it('refuses an unknown subcommand or option with exit code 2', () => {
    assert.equal(mesh(['transmogrify']).status, 2);
    const bad = mesh(['encode', '--colour']);
    assert.equal(bad.status, 2);
    assert.equal(mesh(['encode', '--format', 'cbor']).status, 2);
  });

  it('encode --raw --format binary reproduces golden vector 1 byte for byte', () => {
    const run = mesh(['encode', '--raw', '--format', 'binary'], MINIMAL);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.toString('hex'), GOLDEN_1.toString('hex'));
  });

  it('decode turns golden vector 1 into the reference JSON floor text', () => {
    const run = mesh(['decode'], GOLDEN_1);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.toString(), `${MINIMAL}\n`);
  });

  it('encode fills in the application defaults and decode reads the frame back, either codec', () => {
    for (const format of ['json', 'binary']) {
      const frame = mesh(['encode', '--format', format], JSON.stringify(APP));
      assert.equal(frame.status, 0, frame.stderr);
      assert.equal(frame.stdout[0], format === 'binary' ? 0xf5 : 0x7b);
      const back = mesh(['decode'], frame.stdout);
      const message = JSON.parse(back.stdout.toString()) as Record<string, unknown>;
      assert.equal(message.content, 'hello');
      assert.equal(message.ttl, 8);
      assert.match(String(message.id), /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    }
  });

  it('keeps 64-bit integers exact: 2^53 + 1 survives, u64::MAX clamps to 2^63 − 1', () => {
    const frame = mesh(['encode', '--format', 'binary'], JSON.stringify({ ...APP, lamport_clock: '9007199254740993', timestamp: '-9007199254740993' }));
    const text = mesh(['decode'], frame.stdout).stdout.toString();
    assert.match(text, /"timestamp":-9007199254740993,"lamport_clock":9007199254740993,/);
    const clamped = mesh(['decode'], MINIMAL.replace('"lamport_clock":0', '"lamport_clock":18446744073709551615')).stdout.toString();
    assert.match(clamped, /"lamport_clock":9223372036854775807,/);
  });

  it('refuses bad input with exit code 1 and one stderr line naming the code', () => {
    const cases: Array<[string[], string | Buffer, string]> = [
      [['encode'], JSON.stringify({ ...APP, metadata: { __ctrl_sig: 'x' } }), 'RESERVED_METADATA_KEY'],
      [['encode'], JSON.stringify({ ...APP, transport_peer_id: 'alice' }), 'TRANSPORT_PEER_ID_REFUSED'],
      [['encode'], '{"sender":"a","sender":"b"}', 'JSON_DUPLICATE_KEY'],
      [['encode', '--raw'], JSON.stringify(APP), 'MISSING_FIELD'],
      [['decode'], GOLDEN_1.subarray(0, 30), 'TRUNCATED'],
      [['decode'], '', 'EMPTY_FRAME'],
      [['decode'], MINIMAL.replace('"ttl":8', '"ttl":8,"ttl":8'), 'JSON_DUPLICATE_KEY'],
      [['decode'], Buffer.from([0xf6, 0]), 'UNSUPPORTED_WIRE_VERSION'],
    ];
    for (const [args, input, code] of cases) {
      const run = mesh(args, input);
      assert.equal(run.status, 1, `${args.join(' ')} → ${code}`);
      assert.equal(run.stdout.length, 0);
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], new RegExp(`^clawling mesh ${args[0]}: ${code}: `));
    }
  });

  it('encode --jsonl and decode --jsonl work line by line, in order, skipping blank lines', () => {
    const input = [1, 2, 3].map((n) => JSON.stringify({ ...APP, content: `m${n}` })).join('\n\n') + '\n';
    const encoded = mesh(['encode', '--jsonl', '--format', 'binary'], input);
    assert.equal(encoded.status, 0, encoded.stderr);
    const lines = encoded.stdout.toString().trimEnd().split('\n');
    assert.equal(lines.length, 3);
    for (const line of lines) assert.equal(Buffer.from(line, 'base64')[0], 0xf5);
    const decoded = mesh(['decode', '--jsonl'], encoded.stdout);
    assert.deepEqual(
      decoded.stdout
        .toString()
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { content: string }).content),
      ['m1', 'm2', 'm3'],
    );
  });

  it('with --jsonl, a bad line stops the run with its line number; earlier lines stay written', () => {
    const input = [JSON.stringify(APP), JSON.stringify({ ...APP, recipient: 'a:b' }), JSON.stringify(APP)].join('\n');
    const run = mesh(['encode', '--jsonl'], input);
    assert.equal(run.status, 1);
    assert.equal(run.stdout.toString().trimEnd().split('\n').length, 1);
    assert.match(run.stderr, /^clawling mesh encode: line 2: BAD_IDENTIFIER: /);
    const decoded = mesh(['decode', '--jsonl'], 'AAAA\n');
    assert.equal(decoded.status, 1);
    assert.match(decoded.stderr, /^clawling mesh decode: line 1: /);
  });

  it('fragment writes 185-byte BLE writes (or wider with --mtu) that reassemble restores in any order', () => {
    // Not base64-like, so that the frame keeps its size (a base64 tail would shrink by a quarter).
    const content = 'x. '.repeat(270);
    const frame = mesh(['encode', '--format', 'binary'], JSON.stringify({ ...APP, content })).stdout;
    const fragments = mesh(['fragment'], frame);
    assert.equal(fragments.status, 0, fragments.stderr);
    const lines = fragments.stdout.toString().trimEnd().split('\n');
    assert.ok(lines.length >= 6);
    for (const line of lines) assert.ok(Buffer.from(line, 'base64').length <= 185);
    const wide = mesh(['fragment', '--mtu', '512'], frame).stdout.toString().trimEnd().split('\n');
    assert.ok(wide.length < lines.length);
    assert.equal(decodeFragment(Buffer.from(wide[0], 'base64')).total, wide.length);
    const back = mesh(['reassemble'], [...lines].reverse().join('\n') + '\n');
    assert.equal(back.status, 0, back.stderr);
    assert.equal(Buffer.from(back.stdout.toString().trim(), 'base64').toString('hex'), frame.toString('hex'));
    const decoded = mesh(['reassemble', '--decode'], lines.join('\n'));
    assert.equal((JSON.parse(decoded.stdout.toString()) as { content: string }).content, content);
  });

  it('quotes a hostile fragment id in its error as one printable stderr line', () => {
    const frame = mesh(['encode'], JSON.stringify({ ...APP, content: 'y; '.repeat(170) })).stdout;
    const id = 'x\n\x1b[2J\u202eevil';
    const [first] = encodeFragments(new Uint8Array(frame), id, 185);
    const bad = Buffer.from(first);
    bad.writeUInt16LE(7, 4 + Buffer.byteLength(id) + 2); // a total the assembly does not expect
    const run = mesh(['reassemble'], `${Buffer.from(first).toString('base64')}\n${bad.toString('base64')}\n`);
    assert.equal(run.status, 1);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0], /^clawling mesh reassemble: line 2: FRAGMENT_TOTAL_MISMATCH: fragment of x ?\\x1b\[2J\\u202eevil declares 7 fragments/);
    assert.deepEqual(unsafeCharacters(lines[0]), [], 'no raw ESC or bidi override');
  });

  it('reassemble reports fragments still missing at the end of the input, and a bad fragment by line', () => {
    const frame = mesh(['encode'], JSON.stringify({ ...APP, content: 'y; '.repeat(170) })).stdout;
    const lines = mesh(['fragment'], frame).stdout.toString().trimEnd().split('\n');
    const partial = mesh(['reassemble'], lines.slice(0, -1).join('\n'));
    assert.equal(partial.status, 1);
    assert.match(partial.stderr, /INCOMPLETE_MESSAGE/);
    const bad = mesh(['reassemble'], `${lines[0]}\nAAAA\n`);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^clawling mesh reassemble: line 2: FRAGMENT_TOO_SHORT: /);
  });
});
