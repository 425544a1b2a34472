/**
 * The mesh-decode node in Node-RED 4.1 (test helper): frames of either codec in, message objects out, BLE
 * fragments reassembled across messages, refusals to Catch with their code; and mesh-encode → mesh-decode wired.
 */
import assert from 'node:assert/strict';
import { encodeFragments } from '../../lib/mesh/ble-fragment';
import { generateControlIdentity, signControlMessage } from '../../lib/mesh/control-signature';
import { encodeFrame } from '../../lib/mesh/frame';
import { LAMPORT_CLOCK_MAX } from '../../lib/mesh/message';
import { encodeCompactMlsEnvelope } from '../../lib/mesh/mls-envelope';
import { baseMessage, fullMessage } from '../lib/mesh/fixtures';
import { collectMessages, nextMessage, probedFlow, probes, useNodeRed, type NodeMsg, type TestNode } from '../support/node-red';
import { coreNode } from '../support/node-red-package';
import { unsafeCharacters } from '../support/unsafe-text';

/* eslint-disable @typescript-eslint/no-require-imports */
const encodeNode = require('../../nodes/mesh-encode');
const decodeNode = require('../../nodes/mesh-decode');
const catchNode = coreNode('core/common/25-catch.js');
const statusNode = coreNode('core/common/25-status.js');
/* eslint-enable @typescript-eslint/no-require-imports */

type Flow = Parameters<ReturnType<typeof useNodeRed>['load']>[1];

describe('mesh-decode node', function () {
  this.timeout(20_000);
  const helper = useNodeRed();

  async function load(config: Record<string, unknown> = {}): Promise<Record<'dec' | 'out' | 'caught' | 'statuses', TestNode>> {
    await helper.load([decodeNode, catchNode, statusNode], probedFlow({ id: 'dec', type: 'mesh-decode', ...config }) as Flow);
    return probes(helper, 'dec');
  }

  it('decodes a binary v1 frame into the plain form and says which codec arrived', async () => {
    const n = await load();
    const out = nextMessage<NodeMsg>(n.out);
    n.dec.receive({ payload: Buffer.from(encodeFrame(fullMessage(), 'binary')), topic: 't' });
    const msg = await out;
    const p = msg.payload as Record<string, unknown>;
    assert.equal(msg.format, 'binary');
    assert.equal(msg.topic, 't');
    assert.equal(p.id, '67e55044-10b1-426f-9247-bb680e5fe0c8');
    assert.equal(msg.messageId, p.id);
    assert.equal(p.lamport_clock, 9007199254740993n);
    assert.equal(p.reply_to_msg, '00112233-4455-6677-8899-aabbccddeeff');
    assert.ok(Buffer.isBuffer(p.binary_content));
    assert.deepEqual(p.metadata, { zeta: 'last', alpha: 'first', ключ: 'значение' });
  });

  it('decodes JSON floor frames given as a Buffer, as text and as base64', async () => {
    const n = await load();
    const frame = Buffer.from(encodeFrame(baseMessage({ content: 'hi' }), 'json'));
    const outs = collectMessages(n.out, 3);
    n.dec.receive({ payload: frame });
    n.dec.receive({ payload: frame.toString('utf8') });
    n.dec.receive({ payload: Buffer.from(encodeFrame(baseMessage({ content: 'hi' }), 'binary')).toString('base64') });
    const got = await outs;
    assert.deepEqual(
      got.map((m) => [m.format, (m.payload as { content: string }).content]),
      [
        ['json', 'hi'],
        ['json', 'hi'],
        ['binary', 'hi'],
      ],
    );
  });

  it('reads a sealed __MLS_ENC__ content into its parts on msg.envelope and names the form that arrived', async () => {
    const n = await load();
    const envelope = { group_id: 'grp', sender_id: 'alice', message_type: 'welcome' as const, epoch: 2n, timestamp_ms: 5n, ciphertext: Uint8Array.from([9, 8]) };
    const json = JSON.stringify({ group_id: 'grp', message_type: 'Welcome', epoch: 2, ciphertext: [9, 8], sender_id: 'alice', timestamp_ms: 5 });
    const bodies = [json, Buffer.from(encodeCompactMlsEnvelope(envelope)).toString('base64'), Buffer.from(json).toString('base64'), 'AAAA'];
    const outs = collectMessages(n.out, bodies.length + 1);
    for (const body of bodies) n.dec.receive({ payload: Buffer.from(encodeFrame(baseMessage({ content: `__MLS_ENC__${body}` }), 'binary')) });
    n.dec.receive({ payload: Buffer.from(encodeFrame(baseMessage({ content: 'plain' }), 'json')), envelope: 'stale' });
    const got = await outs;
    assert.deepEqual(
      got.slice(0, 3).map((m) => m.envelope),
      ['json', 'compact', 'base64-json'].map((form) => ({ form, group_id: 'grp', sender_id: 'alice', message_type: 'welcome', epoch: 2, timestamp_ms: 5, ciphertext: Buffer.from([9, 8]) })),
    );
    assert.deepEqual((got[3]!.envelope as { form: string; error: { code: string } }).form, 'unreadable');
    assert.equal((got[3]!.envelope as { error: { code: string } }).error.code, 'BAD_MLS_ENVELOPE');
    assert.equal((got[3]!.payload as { content: string }).content, '__MLS_ENC__AAAA', 'the message itself still decodes');
    assert.equal('envelope' in got[4]!, false, 'no envelope on other content, not even one the input carried');
  });

  it('clamps an adversarial Lamport clock instead of refusing the message', async () => {
    const n = await load();
    const out = nextMessage<NodeMsg>(n.out);
    const text = Buffer.from(encodeFrame(baseMessage(), 'json')).toString().replace('"lamport_clock":0', '"lamport_clock":18446744073709551615');
    n.dec.receive({ payload: text });
    assert.equal(((await out).payload as { lamport_clock: bigint }).lamport_clock, LAMPORT_CLOCK_MAX);
  });

  it('sends a refused frame to Catch with msg.error.code and shows the code in its status', async () => {
    const n = await load();
    const caught = collectMessages(n.caught, 4);
    const statuses = collectMessages(n.statuses, 4);
    const frame = Buffer.from(encodeFrame(baseMessage(), 'binary'));
    n.dec.receive({ payload: frame.subarray(0, 20) });
    n.dec.receive({ payload: Buffer.from('{"id":"x"}') });
    n.dec.receive({ payload: 'not base64!' });
    n.dec.receive({ payload: 42 });
    const codes = (await caught).map((m) => m.error?.code);
    assert.deepEqual(codes, ['TRUNCATED', 'BAD_UUID', 'BAD_BASE64', 'NOT_BYTES']);
    const last = (await statuses)[3];
    assert.equal(last.status?.fill, 'red');
    assert.match(String(last.status?.text), /4 mesh-decode.status.failed \(NOT_BYTES\)/);
  });

  it('reassembles fragments arriving one per message, in any order, and sends one message when complete', async () => {
    const n = await load({ reassemble: true });
    const m = baseMessage({ content: 'z'.repeat(900) });
    const fragments = encodeFragments(encodeFrame(m, 'binary'), m.id.toString(), 185).reverse();
    assert.ok(fragments.length > 2);
    const out = nextMessage<NodeMsg>(n.out);
    const statuses = collectMessages(n.statuses, 1);
    for (const f of fragments) n.dec.receive({ payload: Buffer.from(f) });
    const msg = await out;
    assert.equal((msg.payload as { content: string }).content.length, 900);
    assert.equal(msg.format, 'binary');
    // The helper's RED._ returns the key itself; the blue ring is the in-progress state.
    const [first] = await statuses;
    assert.equal(first.status?.fill, 'blue');
    assert.equal(first.status?.text, 'mesh-decode.status.assembling');
  });

  it('reports a bad fragment to Catch and still completes the message from good ones', async () => {
    const n = await load({ reassemble: true });
    const m = baseMessage({ content: 'q'.repeat(400) });
    const fragments = encodeFragments(encodeFrame(m, 'json'), m.id.toString(), 185);
    const caught = nextMessage<NodeMsg>(n.caught);
    const out = nextMessage<NodeMsg>(n.out);
    const bad = Buffer.from(fragments[0]);
    bad.writeUInt16LE(7, 4 + 36 + 2); // total 7 ≠ the assembly's
    n.dec.receive({ payload: Buffer.from(fragments[0]) });
    n.dec.receive({ payload: bad });
    for (const f of fragments.slice(1)) n.dec.receive({ payload: Buffer.from(f) });
    assert.equal((await caught).error?.code, 'FRAGMENT_TOTAL_MISMATCH');
    assert.equal(((await out).payload as { content: string }).content, 'q'.repeat(400));
  });

  it('writes a refusal that quotes a hostile fragment id as one printable log line when no Catch takes it', async () => {
    const at = { z: 'tab', x: 100, y: 100 };
    await helper.load([decodeNode], [{ id: 'tab', type: 'tab' }, { id: 'dec', type: 'mesh-decode', ...at, reassemble: true, wires: [[]] }] as Flow);
    const id = 'x\n[red] [mesh-decode:forged] all good\x1b[2J\u202e';
    const m = baseMessage({ content: 'q'.repeat(400) });
    const [first] = encodeFragments(encodeFrame(m, 'json'), id, 185);
    const bad = Buffer.from(first);
    bad.writeUInt16LE(7, 4 + Buffer.byteLength(id) + 2); // total 7 ≠ the assembly's: FRAGMENT_TOTAL_MISMATCH quotes the id
    const spy = (helper as unknown as { log(): { getCalls(): Array<{ args: Array<{ level?: number; id?: string; msg?: unknown }> }> } }).log();
    const dec = helper.getNode('dec') as unknown as TestNode;
    dec.receive({ payload: Buffer.from(first) });
    dec.receive({ payload: bad });
    const logged = async (): Promise<{ msg?: unknown }> => {
      for (let i = 0; i < 200; i++) {
        const entry = spy.getCalls().map((c) => c.args[0]).find((e) => e?.id === 'dec' && e.level === 20);
        if (entry) return entry;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('no error logged by the node');
    };
    const entry = await logged();
    const line = String(entry.msg);
    assert.match(line, /^MeshDecodeError: fragment of x\\n\[red\] \[mesh-decode:forged\] all good\\x1b\[2J\\u202e declares 7 fragments; its assembly expects \d+$/);
    assert.deepEqual(unsafeCharacters(line), [], 'no raw newline, ESC or bidi override in the line');
    const stack = String((entry.msg as Error).stack);
    assert.equal(stack.split('\n')[0], line, 'the stack Node-RED logs in verbose mode starts with the same line');
    assert.match(stack.split('\n')[1], /^ +at /, 'and keeps the frames');
    assert.equal((entry.msg as { code?: string }).code, 'FRAGMENT_TOTAL_MISMATCH');
  });

  it('lets whole frames through while reassembling, and takes an array of fragments in one message', async () => {
    const n = await load({ reassemble: true });
    const m = baseMessage({ content: 'w'.repeat(500) });
    const outs = collectMessages(n.out, 2);
    n.dec.receive({ payload: Buffer.from(encodeFrame(baseMessage(), 'binary')) });
    n.dec.receive({ payload: encodeFragments(encodeFrame(m, 'binary'), m.id.toString(), 185).map((f) => Buffer.from(f)) });
    const [whole, assembled] = await outs;
    assert.equal((whole.payload as { content: string }).content, '');
    assert.equal((assembled.payload as { content: string }).content.length, 500);
  });

  it('says whether the sender is proven: a signed control message, or a direct frame from the peer the flow vouches for', async () => {
    const n = await load();
    const alice = generateControlIdentity();
    const direct = baseMessage({ sender: alice.address, content: 'hello' });
    const relayed = baseMessage({ sender: alice.address, content: 'hello', hop_count: 1 });
    const signed = signControlMessage(baseMessage({ sender: alice.address, recipient: 'bob', content: '__CONN_REQ__{}', hop_count: 3 }), alice.privateKey);
    const forged = { ...signed, sender: generateControlIdentity().address };
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['no peer address', { payload: Buffer.from(encodeFrame(direct, 'binary')) }, false],
      ['hop 0 from that peer', { payload: Buffer.from(encodeFrame(direct, 'binary')), peerAddress: alice.address }, true],
      ['hop 0 from another peer', { payload: Buffer.from(encodeFrame(direct, 'binary')), peerAddress: generateControlIdentity().address }, false],
      ['relayed, peer address equal to the sender', { payload: Buffer.from(encodeFrame(relayed, 'binary')), peerAddress: alice.address }, false],
      ['signed control, relayed', { payload: Buffer.from(encodeFrame(signed, 'json')) }, true],
      ['control signed by another key', { payload: Buffer.from(encodeFrame(forged, 'json')) }, false],
    ];
    const outs = collectMessages(n.out, cases.length);
    for (const [, input] of cases) n.dec.receive(input);
    const got = (await outs).map((m) => m.senderVerified);
    assert.deepEqual(got, cases.map(([, , expected]) => expected), cases.map(([name]) => name).join(' | '));
  });

  it('works wired after mesh-encode: fragments cross as separate messages and arrive as the message sent', async () => {
    const at = { z: 'tab', x: 100, y: 100 };
    const flow = [
      { id: 'tab', type: 'tab' },
      { id: 'enc', type: 'mesh-encode', ...at, format: 'binary', fragment: true, mtu: '185', wires: [['dec']] },
      { id: 'dec', type: 'mesh-decode', ...at, reassemble: true, wires: [['out']] },
      { id: 'out', type: 'helper', ...at },
    ];
    await helper.load([encodeNode, decodeNode], flow as Flow);
    const out = nextMessage<NodeMsg>(helper.getNode('out') as unknown as TestNode);
    const input = {
      id: '{11111111-2222-4333-8444-555555555555}',
      sender: 'kitchen-sensor',
      recipient: 'gateway',
      app_id: 'home',
      content: 'temperature report '.repeat(30),
      priority: 'High',
      metadata: { room: 'kitchen', unit: '°C' },
      binary_content: Buffer.from([1, 2, 3]),
      lamport_clock: '9007199254740993',
    };
    (helper.getNode('enc') as unknown as TestNode).receive({ payload: input });
    const msg = await out;
    const p = msg.payload as Record<string, unknown>;
    assert.equal(p.id, '11111111-2222-4333-8444-555555555555');
    assert.equal(p.content, input.content);
    assert.equal(p.priority, 'high');
    assert.deepEqual(p.metadata, input.metadata);
    assert.deepEqual([...(p.binary_content as Buffer)], [1, 2, 3]);
    assert.equal(p.lamport_clock, 9007199254740993n);
    assert.equal(msg.format, 'binary');
  });
});
