import assert from 'node:assert/strict';
import { VirtualAir } from '../../devble/air';
import { VirtualController } from '../../devble/controller';
import { H4Parser } from '../../devble/h4';
import { ERR, LE_EVT, OP, PB, addressBytes } from '../../devble/hci';
import { ScriptedHost } from './scripted-host';

interface Node {
  host: ScriptedHost;
  controller: VirtualController;
}

const airs: VirtualAir[] = [];

function air(): VirtualAir {
  const a = new VirtualAir({ advertisingEventMs: 5 });
  airs.push(a);
  return a;
}

async function node(a: VirtualAir, options: { aclBufferLength?: number; aclBufferCount?: number } = {}): Promise<Node> {
  const host = new ScriptedHost();
  const controller = new VirtualController(a, host, options);
  await host.init();
  return { host, controller };
}

function advParams(type = 0x00): Buffer {
  const p = Buffer.alloc(15);
  p.writeUInt16LE(0x00a0, 0);
  p.writeUInt16LE(0x00a0, 2);
  p.writeUInt8(type, 4);
  p.writeUInt8(0x07, 13);
  return p;
}

function eirPayload(data: Buffer): Buffer {
  const p = Buffer.alloc(32);
  p.writeUInt8(data.length, 0);
  data.copy(p, 1);
  return p;
}

const ADV = Buffer.from('0201060302aabb', 'hex');
const SCAN_RSP = Buffer.from('050978797a21', 'hex');

async function advertise(n: Node, type = 0x00): Promise<void> {
  await n.host.complete(OP.LE_SET_ADV_PARAMS, advParams(type));
  await n.host.complete(OP.LE_SET_ADV_DATA, eirPayload(ADV));
  await n.host.complete(OP.LE_SET_SCAN_RSP_DATA, eirPayload(SCAN_RSP));
  await n.host.complete(OP.LE_SET_ADV_ENABLE, Buffer.of(1));
}

async function scan(n: Node, active: boolean, filterDuplicates: boolean): Promise<void> {
  await n.host.complete(OP.LE_SET_SCAN_PARAMS, Buffer.from([active ? 1 : 0, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]));
  await n.host.complete(OP.LE_SET_SCAN_ENABLE, Buffer.of(1, filterDuplicates ? 1 : 0));
}

function createConn(peer: string): Buffer {
  const p = Buffer.alloc(25);
  p.writeUInt16LE(0x0060, 0);
  p.writeUInt16LE(0x0030, 2);
  addressBytes(peer).copy(p, 6);
  p.writeUInt16LE(0x0006, 13);
  p.writeUInt16LE(0x0012, 15);
  p.writeUInt16LE(0x0000, 17);
  p.writeUInt16LE(0x002a, 19);
  return p;
}

/** Connects `central` to advertising `peripheral`; returns each side's handle. */
async function connect(central: Node, peripheral: Node): Promise<{ c: number; p: number }> {
  await advertise(peripheral);
  const pDone = peripheral.host.nextLe(LE_EVT.CONNECTION_COMPLETE);
  const cDone = central.host.nextLe(LE_EVT.CONNECTION_COMPLETE);
  central.host.command(OP.LE_CREATE_CONN, createConn(peripheral.controller.address));
  const [c, p] = await Promise.all([cDone, pDone]);
  return { c: c.readUInt16LE(1), p: p.readUInt16LE(1) };
}

function disconnections(n: Node): Array<{ handle: number; reason: number }> {
  return n.host.received
    .filter((p) => p.kind === 'event' && p.code === 0x05)
    .map((p) => ({ handle: (p as { params: Buffer }).params.readUInt16LE(1), reason: (p as { params: Buffer }).params[3] }));
}

const l2cap = (cid: number, payload: Buffer): Buffer => {
  const h = Buffer.alloc(4);
  h.writeUInt16LE(payload.length, 0);
  h.writeUInt16LE(cid, 2);
  return Buffer.concat([h, payload]);
};

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('devble virtual LE controller', () => {
  afterEach(() => {
    for (const a of airs.splice(0)) a.close();
  });

  describe('H4 framing', () => {
    it('reassembles commands and ACL packets split at any byte', () => {
      const bytes = Buffer.from('01030c00' + '0240000500010004000a' + '010c20020101', 'hex');
      for (let cut = 1; cut < bytes.length; cut++) {
        const parser = new H4Parser();
        const packets = [...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))];
        assert.deepEqual(
          packets.map((p) => (p.kind === 'command' ? `cmd ${p.opcode.toString(16)} ${p.params.toString('hex')}` : `acl ${p.handle} ${p.pb} ${p.data.toString('hex')}`)),
          ['cmd c03 ', 'acl 64 0 0100040' + '00a', 'cmd 200c 0101'],
          `cut at ${cut}`,
        );
      }
    });

    it('rejects a packet indicator a host never sends', () => {
      assert.throws(() => new H4Parser().push(Buffer.of(0x04, 0x0e, 0x00)), /unexpected packet indicator 0x04/);
    });
  });

  describe('initialisation', () => {
    it('stays silent until the host speaks, then answers Reset with the exact Command Complete the UART driver waits for', async () => {
      const host = new ScriptedHost();
      new VirtualController(air(), host);
      await sleep(10);
      assert.equal(host.bytes.length, 0);
      await host.complete(OP.RESET);
      assert.equal(host.bytes[0].toString('hex'), '040e0401030c00');
    });

    it('reports version, address, buffer sizes and LE features a legacy-only 5.0 controller has', async () => {
      const { host, controller } = await node(air(), { aclBufferLength: 100, aclBufferCount: 3 });
      const version = await host.complete(OP.READ_LOCAL_VERSION);
      assert.equal(version[0], ERR.SUCCESS);
      assert.ok(version[1] >= 0x06, 'HCI version at least 4.0, or both stacks call the adapter unsupported');
      assert.deepEqual(await host.complete(OP.READ_BD_ADDR), Buffer.concat([Buffer.of(0), addressBytes(controller.address)]));
      assert.deepEqual(await host.complete(OP.LE_READ_BUFFER_SIZE), Buffer.of(0, 100, 0, 3));
      const features = await host.complete(OP.LE_READ_LOCAL_FEATURES);
      assert.equal(features[1] & 0x20, 0x20, 'data length extension');
      assert.equal(features[2] & 0x10, 0, 'no extended advertising: noble stays on legacy commands');
      const max = await host.complete(OP.LE_READ_MAX_DATA_LENGTH);
      assert.equal(max.readUInt16LE(1), 251);
    });

    it('answers an unknown command with Unknown HCI Command', async () => {
      const { host } = await node(air());
      assert.deepEqual(await host.complete(0xfc01), Buffer.of(ERR.UNKNOWN_COMMAND));
    });
  });

  describe('advertising and scanning', () => {
    it('an active scan hears the advertisement and then the scan response', async () => {
      const a = air();
      const scanner = await node(a);
      const advertiser = await node(a);
      await advertise(advertiser);
      const from = scanner.host.received.length;
      await scan(scanner, true, true);
      const adv = await scanner.host.nextLe(LE_EVT.ADVERTISING_REPORT, from);
      await sleep(30);
      const reports = scanner.host.leEvents(LE_EVT.ADVERTISING_REPORT);
      assert.equal(adv[1], 0x00, 'ADV_IND');
      assert.deepEqual(adv.subarray(3, 9), addressBytes(advertiser.controller.address));
      assert.deepEqual(adv.subarray(10, 10 + adv[9]), ADV);
      assert.equal(reports.length, 2, 'filter duplicates: each report once');
      assert.equal(reports[1][1], 0x04, 'SCAN_RSP');
      assert.deepEqual(reports[1].subarray(10, 10 + reports[1][9]), SCAN_RSP);
      assert.equal(reports[1].readInt8(10 + reports[1][9]), -50);
    });

    it('a passive scan gets no scan response, and without duplicate filtering hears every advertising event', async () => {
      const a = air();
      const scanner = await node(a);
      const advertiser = await node(a);
      await advertise(advertiser);
      await scan(scanner, false, false);
      await sleep(40);
      const reports = scanner.host.leEvents(LE_EVT.ADVERTISING_REPORT);
      assert.ok(reports.length >= 3, `repeated reports (${reports.length})`);
      assert.ok(reports.every((r) => r[1] === 0x00));
    });

    it('honours the event masks: no LE meta events until the host unmasks them', async () => {
      const a = air();
      const scanHost = new ScriptedHost();
      new VirtualController(a, scanHost);
      await scanHost.complete(OP.RESET);
      const advertiser = await node(a);
      await advertise(advertiser);
      await scan({ host: scanHost, controller: undefined as unknown as VirtualController }, true, false);
      await sleep(30);
      assert.equal(scanHost.leEvents(LE_EVT.ADVERTISING_REPORT).length, 0);
      await scanHost.complete(OP.SET_EVENT_MASK, Buffer.from('ffffffffffffff3f', 'hex'));
      await scanHost.nextLe(LE_EVT.ADVERTISING_REPORT);
    });

    it('several scanners share one air; a non-connectable advertiser is heard but cannot be connected', async () => {
      const a = air();
      const s1 = await node(a);
      const s2 = await node(a);
      const adv = await node(a);
      await advertise(adv, 0x03);
      await scan(s1, true, true);
      await scan(s2, true, true);
      await Promise.all([s1.host.nextLe(LE_EVT.ADVERTISING_REPORT, 0), s2.host.nextLe(LE_EVT.ADVERTISING_REPORT, 0)]);
      s1.host.command(OP.LE_CREATE_CONN, createConn(adv.controller.address));
      await sleep(30);
      assert.equal(s1.host.leEvents(LE_EVT.CONNECTION_COMPLETE).length, 0);
      assert.equal(s1.host.leEvents(LE_EVT.ADVERTISING_REPORT).filter((r) => r[1] === 0x04).length, 0, 'ADV_NONCONN_IND is not scannable');
    });
  });

  describe('connections', () => {
    it('LE Create Connection gives each side a Connection Complete with its role and the other address; advertising stops', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      await advertise(peripheral);
      const from = central.host.received.length;
      const pDone = peripheral.host.nextLe(LE_EVT.CONNECTION_COMPLETE);
      central.host.command(OP.LE_CREATE_CONN, createConn(peripheral.controller.address));
      const status = await central.host.next((p) => p.kind === 'event' && p.code === 0x0f, from);
      assert.equal((status as { params: Buffer }).params[0], ERR.SUCCESS);
      const c = await central.host.nextLe(LE_EVT.CONNECTION_COMPLETE, from);
      const p = await pDone;
      assert.equal(c[0], ERR.SUCCESS);
      assert.equal(c[3], 0x00, 'central');
      assert.deepEqual(c.subarray(5, 11), addressBytes(peripheral.controller.address));
      assert.equal(c.readUInt16LE(11), 0x0012, 'the maximum interval asked for');
      assert.equal(p[3], 0x01, 'peripheral');
      assert.deepEqual(p.subarray(5, 11), addressBytes(central.controller.address));
      assert.equal(peripheral.controller.advertising(), undefined);
    });

    it('a create connection waits for the advertiser, and cancelling it reports Unknown Connection Identifier', async () => {
      const a = air();
      const central = await node(a);
      central.host.command(OP.LE_CREATE_CONN, createConn('c0:de:00:00:99:99'));
      await sleep(20);
      const from = central.host.received.length;
      assert.deepEqual(await central.host.complete(OP.LE_CREATE_CONN_CANCEL), Buffer.of(ERR.SUCCESS));
      const c = await central.host.nextLe(LE_EVT.CONNECTION_COMPLETE, from);
      assert.equal(c[0], ERR.UNKNOWN_CONNECTION_ID);
      assert.deepEqual(await central.host.complete(OP.LE_CREATE_CONN_CANCEL), Buffer.of(ERR.COMMAND_DISALLOWED));
    });

    it('routes ACL data both ways in link-layer PDUs of the data length, re-flagged as the receiving host expects', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      const pdu = l2cap(0x0004, Buffer.alloc(56, 0xab));
      const from = peripheral.host.received.length;
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, pdu);
      await central.host.next((p) => p.kind === 'event' && p.code === 0x13);
      const got = peripheral.host.received.slice(from).filter((p) => p.kind === 'acl') as Array<{ handle: number; pb: number; data: Buffer }>;
      assert.deepEqual(got.map((p) => [p.handle, p.pb, p.data.length]), [[h.p, 0b10, 27], [h.p, 0b01, 27], [h.p, 0b01, 6]]);
      assert.deepEqual(Buffer.concat(got.map((p) => p.data)), pdu);
      // Continuation packets stay continuations.
      const back = central.host.received.length;
      peripheral.host.acl(h.p, PB.FIRST_NON_FLUSHABLE, pdu.subarray(0, 20));
      peripheral.host.acl(h.p, PB.CONTINUING, pdu.subarray(20));
      await sleep(10);
      const rx = central.host.received.slice(back).filter((p) => p.kind === 'acl') as Array<{ pb: number; data: Buffer }>;
      assert.deepEqual(rx.map((p) => p.pb), [0b10, 0b01, 0b01]);
      assert.deepEqual(Buffer.concat(rx.map((p) => p.data)), pdu);
    });

    it('LE Set Data Length raises the sender direction to 251 and tells both hosts', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      const cl = central.host.nextLe(LE_EVT.DATA_LENGTH_CHANGE);
      const pl = peripheral.host.nextLe(LE_EVT.DATA_LENGTH_CHANGE);
      const p = Buffer.alloc(6);
      p.writeUInt16LE(h.c, 0);
      p.writeUInt16LE(251, 2);
      p.writeUInt16LE(2120, 4);
      await central.host.complete(OP.LE_SET_DATA_LENGTH, p);
      const [c, q] = await Promise.all([cl, pl]);
      assert.deepEqual([c.readUInt16LE(0), c.readUInt16LE(2), c.readUInt16LE(6)], [h.c, 251, 27]);
      assert.deepEqual([q.readUInt16LE(0), q.readUInt16LE(2), q.readUInt16LE(6)], [h.p, 27, 251]);
      const from = peripheral.host.received.length;
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(200)));
      await sleep(10);
      assert.deepEqual(peripheral.host.received.slice(from).filter((x) => x.kind === 'acl').map((x) => (x as { data: Buffer }).data.length), [204]);
    });

    it('acknowledges each forwarded packet with Number Of Completed Packets and flags a host that does not wait for them', async () => {
      const a = air();
      const central = await node(a, { aclBufferLength: 27, aclBufferCount: 2 });
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(10)));
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(10)));
      assert.deepEqual(central.controller.violations, []);
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(10)));
      assert.match(central.controller.violations[0], /all 2 buffers are in use/);
      await sleep(10);
      const nocp = central.host.received.filter((p) => p.kind === 'event' && p.code === 0x13).map((p) => (p as { params: Buffer }).params);
      const total = nocp.reduce((sum, p) => sum + p.readUInt16LE(3), 0);
      assert.equal(total, 2);
      assert.equal(nocp[0].readUInt16LE(1), h.c);
      assert.equal(central.controller.aclInFlight, 0);
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(24)));
      assert.match(central.controller.violations[1], /28 bytes .* exceeds the 27-byte buffers/);
    });

    it('a host Disconnect: its own side reports 0x16, the other side the reason the host gave', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      const p = Buffer.alloc(3);
      p.writeUInt16LE(h.p, 0);
      p.writeUInt8(ERR.REMOTE_USER_TERMINATED, 2);
      peripheral.host.command(OP.DISCONNECT, p);
      await central.host.next((x) => x.kind === 'event' && x.code === 0x05);
      assert.deepEqual(disconnections(central), [{ handle: h.c, reason: ERR.REMOTE_USER_TERMINATED }]);
      assert.deepEqual(disconnections(peripheral), [{ handle: h.p, reason: ERR.LOCAL_HOST_TERMINATED }]);
      const again = Buffer.alloc(3);
      again.writeUInt16LE(h.c, 0);
      const before = central.host.received.length;
      central.host.command(OP.DISCONNECT, again);
      const st = await central.host.next((x) => x.kind === 'event' && x.code === 0x0f && x.params.readUInt16LE(2) === OP.DISCONNECT, before);
      assert.equal((st as { params: Buffer }).params[0], ERR.UNKNOWN_CONNECTION_ID);
    });

    it('a link the air drops ends on both sides with a supervision timeout and loses what was on its way', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      const from = peripheral.host.received.length;
      central.host.acl(h.c, PB.FIRST_NON_FLUSHABLE, l2cap(4, Buffer.alloc(40)));
      a.drop([...a.links][0]);
      await tick();
      await tick();
      assert.deepEqual(disconnections(central), [{ handle: h.c, reason: ERR.CONNECTION_TIMEOUT }]);
      assert.deepEqual(disconnections(peripheral), [{ handle: h.p, reason: ERR.CONNECTION_TIMEOUT }]);
      assert.equal(peripheral.host.received.slice(from).filter((x) => x.kind === 'acl').length, 0);
      assert.equal(central.controller.aclInFlight, 0, 'the host forgets packets of a closed handle, so the controller does too');
    });

    it('a Reset or a detached host drops its links: the other side sees a supervision timeout', async () => {
      const a = air();
      const central = await node(a);
      const p1 = await node(a);
      const p2 = await node(a);
      const h1 = await connect(central, p1);
      const h2 = await connect(central, p2);
      assert.notEqual(h1.c, h2.c);
      await p1.host.complete(OP.RESET);
      await tick();
      assert.deepEqual(disconnections(central), [{ handle: h1.c, reason: ERR.CONNECTION_TIMEOUT }]);
      assert.deepEqual(disconnections(p1), [], 'a reset controller reports nothing of the links it had');
      central.controller.detach();
      await tick();
      assert.deepEqual(disconnections(p2), [{ handle: h2.p, reason: ERR.CONNECTION_TIMEOUT }]);
    });

    it('a detached controller is silent; reattached, it answers again as a fresh controller and can be connected to', async () => {
      const a = air();
      const central = await node(a);
      const p = await node(a);
      p.controller.detach();
      const before = p.host.bytes.length;
      p.host.command(OP.RESET);
      await sleep(10);
      assert.equal(p.host.bytes.length, before, 'no answer while detached');
      p.controller.reattach();
      await p.host.init();
      const h = await connect(central, p);
      assert.ok(h.c >= 0 && h.p >= 0, 'connected after the reattach');
      assert.deepEqual(p.controller.violations, []);
    });

    it('a connection update reaches both hosts', async () => {
      const a = air();
      const central = await node(a);
      const peripheral = await node(a);
      const h = await connect(central, peripheral);
      const p = Buffer.alloc(14);
      p.writeUInt16LE(h.c, 0);
      p.writeUInt16LE(0x18, 2);
      p.writeUInt16LE(0x28, 4);
      p.writeUInt16LE(0, 6);
      p.writeUInt16LE(0x1f4, 8);
      const u = peripheral.host.nextLe(LE_EVT.CONNECTION_UPDATE_COMPLETE);
      central.host.command(OP.LE_CONN_UPDATE, p);
      const ev = await u;
      assert.deepEqual([ev.readUInt16LE(1), ev.readUInt16LE(3), ev.readUInt16LE(7)], [h.p, 0x28, 0x1f4]);
    });
  });
});
