/**
 * The mesh-encode node in Node-RED 4.1 (test helper): application objects in, frames out, refusals to Catch.
 */
import assert from 'node:assert/strict';
import { decodeFragment } from '../../lib/mesh/ble-fragment';
import { decodeFrame, decodeFrameWithFormat } from '../../lib/mesh/frame';
import { collectMessages, nextMessage, probedFlow, probes, useNodeRed, type NodeMsg, type TestNode } from '../support/node-red';
import { coreNode } from '../support/node-red-package';

/* eslint-disable @typescript-eslint/no-require-imports */
const encodeNode = require('../../nodes/mesh-encode');
const catchNode = coreNode('core/common/25-catch.js');
const statusNode = coreNode('core/common/25-status.js');
/* eslint-enable @typescript-eslint/no-require-imports */

type Flow = Parameters<ReturnType<typeof useNodeRed>['load']>[1];

const APP = { sender: 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn', recipient: 'bob', app_id: 'home', content: 'Front door opened' };

describe('mesh-encode node', function () {
  this.timeout(20_000);
  const helper = useNodeRed();

  async function load(config: Record<string, unknown> = {}): Promise<Record<'enc' | 'out' | 'caught' | 'statuses', TestNode>> {
    await helper.load([encodeNode, catchNode, statusNode], probedFlow({ id: 'enc', type: 'mesh-encode', ...config }) as Flow);
    return probes(helper, 'enc');
  }

    it('encodes an application object as a JSON floor frame by default, filling in the defaults and keeping msg', async () => {
    const n = await load();
    const out = nextMessage<NodeMsg>(n.out);
    n.enc.receive({ payload: APP, topic: 'door' });
    const msg = await out;
    assert.ok(Buffer.isBuffer(msg.payload));
    assert.equal((msg.payload as Buffer)[0], 0x7b);
    assert.equal(msg.format, 'json');
    assert.equal(msg.topic, 'door');
    const m = decodeFrame(msg.payload as Buffer);
    assert.equal(m.content, 'Front door opened');
    assert.equal(m.ttl, 8);
    assert.equal(m.priority, 'medium');
    assert.equal(msg.messageId, m.id.toString());
  });

  it('encodes binary v1 when configured, and ignores msg.format unless told to read it', async () => {
    const n = await load({ format: 'binary' });
    const out = nextMessage<NodeMsg>(n.out);
    n.enc.receive({ payload: APP, format: 'json' });
    const msg = await out;
    assert.equal((msg.payload as Buffer)[0], 0xf5);
    assert.equal(msg.format, 'binary');
  });

  it('takes the codec from msg.format when configured so, JSON when absent', async () => {
    const n = await load({ format: 'msg' });
    const outs = collectMessages(n.out, 2);
    n.enc.receive({ payload: APP, format: 'binary' });
    n.enc.receive({ payload: APP });
    const [a, b] = await outs;
    assert.equal(decodeFrameWithFormat(a.payload as Buffer).format, 'binary');
    assert.equal(decodeFrameWithFormat(b.payload as Buffer).format, 'json');
  });

  it('refuses an unknown msg.format with BAD_FORMAT at the Catch node', async () => {
    const n = await load({ format: 'msg' });
    const caught = nextMessage<NodeMsg>(n.caught);
    n.enc.receive({ payload: APP, format: 'cbor' });
    assert.equal((await caught).error?.code, 'BAD_FORMAT');
  });

  it('reads a string payload as lossless JSON: a Lamport clock of 2^53 + 1 survives', async () => {
    const n = await load({ format: 'binary' });
    const out = nextMessage<NodeMsg>(n.out);
    n.enc.receive({ payload: `{"sender":"a","recipient":"b","app_id":"c","content":"x","lamport_clock":9007199254740993}` });
    assert.equal(decodeFrame((await out).payload as Buffer).lamport_clock, 9007199254740993n);
  });

  for (const key of ['ack_for', '__ctrl_sig', 'transport_preference']) {
    it(`refuses the reserved metadata key ${key}: Catch sees RESERVED_METADATA_KEY and the status names it`, async () => {
      const n = await load();
      const caught = nextMessage<NodeMsg>(n.caught);
      const statuses = collectMessages(n.statuses, 1);
      n.enc.receive({ payload: { ...APP, metadata: { [key]: 'forged' } } });
      const msg = await caught;
      assert.equal(msg.error?.code, 'RESERVED_METADATA_KEY');
      const [status] = await statuses;
      assert.equal(status.status?.fill, 'red');
      assert.match(String(status.status?.text), /RESERVED_METADATA_KEY/);
    });
  }

  for (const content of ['__CUSTODY_RECEIPT__{"v":1}', '__CONN_REQ__{}', '__MLS_ENC__{}']) {
    it(`refuses content under the reserved prefix of ${content.slice(0, content.indexOf('{'))}: Catch sees RESERVED_CONTENT`, async () => {
      const n = await load();
      const caught = nextMessage<NodeMsg>(n.caught);
      n.enc.receive({ payload: { ...APP, content } });
      const msg = await caught;
      assert.equal(msg.error?.code, 'RESERVED_CONTENT');
    });
  }

  it('refuses a transport peer identity in the payload', async () => {
    const n = await load();
    const caught = nextMessage<NodeMsg>(n.caught);
    n.enc.receive({ payload: { ...APP, transport_peer_id: APP.sender } });
    assert.equal((await caught).error?.code, 'TRANSPORT_PEER_ID_REFUSED');
  });

  it('refuses a bad identifier with the validator’s code', async () => {
    const n = await load();
    const caught = nextMessage<NodeMsg>(n.caught);
    n.enc.receive({ payload: { ...APP, recipient: '../etc' } });
    assert.equal((await caught).error?.code, 'BAD_IDENTIFIER');
  });

  it('fragments for Bluetooth LE, one message per 185-byte write, each tagged with its index', async () => {
    const n = await load({ format: 'json', fragment: true });
    const payload = { ...APP, content: 'x'.repeat(600) };
    const first = nextMessage<NodeMsg>(n.out);
    n.enc.receive({ payload });
    const head = await first;
    const total = (head.fragment as { total: number }).total;
    assert.ok(total >= 5);
    const rest = await collectMessages(n.out, total - 1);
    const all = [head, ...rest];
    all.forEach((m, index) => {
      const f = decodeFragment(m.payload as Buffer);
      assert.equal((m.payload as Buffer).length <= 185, true);
      assert.equal(f.index, index);
      assert.equal(f.total, total);
      assert.deepEqual(m.fragment, { messageId: m.messageId, index, total });
      assert.equal(f.messageId, m.messageId);
    });
    assert.equal(decodeFrame(Buffer.concat(all.map((m) => decodeFragment(m.payload as Buffer).data))).content.length, 600);
  });

  it('fragments into one array when configured, with msg.mtu widening the writes', async () => {
    const n = await load({ fragment: true, fragmentOutput: 'array', mtu: '' });
    const out = collectMessages(n.out, 2);
    n.enc.receive({ payload: { ...APP, content: 'y'.repeat(1500) } });
    n.enc.receive({ payload: { ...APP, content: 'y'.repeat(1500) }, mtu: 512 });
    const [narrow, wide] = await out;
    assert.ok(Array.isArray(narrow.payload) && Array.isArray(wide.payload));
    assert.ok((narrow.payload as Buffer[]).every((f) => f.length <= 185));
    assert.ok((wide.payload as Buffer[]).some((f) => f.length > 185));
    assert.ok((wide.payload as Buffer[]).length < (narrow.payload as Buffer[]).length);
  });

  it('refuses a non-numeric msg.mtu and a message beyond 512 fragments', async () => {
    const n = await load({ fragment: true, format: 'binary' });
    const caught = collectMessages(n.caught, 2);
    n.enc.receive({ payload: APP, mtu: 'wide' });
    n.enc.receive({ payload: { ...APP, binary_content: Buffer.alloc(200_000) } });
    const [a, b] = await caught;
    assert.equal(a.error?.code, 'BAD_MTU');
    assert.equal(b.error?.code, 'FRAGMENT_LIMIT');
  });

  it('counts what it encoded in its status', async () => {
    const n = await load();
    const statuses = collectMessages(n.statuses, 2);
    n.enc.receive({ payload: APP });
    n.enc.receive({ payload: APP });
    const [, second] = await statuses;
    assert.equal(second.status?.fill, 'green');
    assert.match(String(second.status?.text), /^2 /);
  });
});
