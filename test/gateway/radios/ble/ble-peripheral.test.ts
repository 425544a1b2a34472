import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRadio, type Radio } from '../../../../gateway/radios';
import type { BlenoFactory } from '../../../../gateway/radios/ble/ble-bleno';
import { loadBleno } from '../../../../gateway/radios/ble/ble-bleno';
import type { NobleFactory } from '../../../../gateway/radios/ble/ble-noble';
import type { BleRadio } from '../../../../gateway/radios/ble/ble-radio';
import { identityFromSeed, type MeshIdentity, nodeIdHash, parseAdvertisement, verifyIdentityBlob } from '../../../../gateway/radios/mesh-identity';
import type { BleRadioConfig } from '../../../../gateway/radios/radio-config';
import { RadioError, type InboundFrame } from '../../../../gateway/radios/radio';
import { deriveAddress } from '../../../../lib/mesh/address';
import { ATT, blenoOver, DEVICE_ID, eirFields, FakeBlenoBinding, IDENTITY, MESSAGE, SERVICE } from '../support/fake-bleno-binding';
import { FakeNobleBinding, type FakePeripheralSpec, nobleOver } from '../support/fake-noble-binding';
import { bigFrame, frameOf, hexOf } from '../support/frames';
import { ManualClock, settle } from '../support/manual-clock';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';

interface Setup {
  radio: BleRadio;
  noble: FakeNobleBinding;
  bleno: FakeBlenoBinding;
  clock: ManualClock;
  logger: TestLogger;
  identity: MeshIdentity;
  journal: string[];
  nobleCalls: Array<Parameters<NobleFactory>[0]>;
  blenoCalls: Array<Parameters<BlenoFactory>[0]>;
}

interface SetupOptions {
  config?: Partial<BleRadioConfig>;
  peripherals?: FakePeripheralSpec[];
  blenoState?: string;
  /** null: no identity given to the radio. */
  identity?: MeshIdentity | null;
  bleno?: BlenoFactory;
}

const opened: Radio[] = [];
const GATEWAY = identityFromSeed('the gateway');

function setup(options: SetupOptions = {}): Setup {
  const clock = new ManualClock();
  const journal: string[] = [];
  const noble = new FakeNobleBinding();
  noble.now = () => clock.now();
  noble.on('stateChange', (state: string) => journal.push(`noble:${state}`));
  for (const spec of options.peripherals ?? []) noble.add(spec);
  const bleno = new FakeBlenoBinding(options.blenoState ?? 'poweredOn', journal);
  bleno.now = () => clock.now();
  const logger = new TestLogger();
  const identity = options.identity === null ? undefined : (options.identity ?? GATEWAY);
  const nobleCalls: Setup['nobleCalls'] = [];
  const blenoCalls: Setup['blenoCalls'] = [];
  const radio = createRadio(
    { id: 'ble0', kind: 'ble', min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 5_000 }, ...options.config },
    {
      logger,
      clock,
      stateDir: '/tmp/radios-test-state',
      identity,
      random: () => 0,
      noble: (o) => {
        nobleCalls.push(o);
        journal.push('noble:create');
        return nobleOver(noble);
      },
      bleno:
        options.bleno ??
        ((o) => {
          blenoCalls.push(o);
          journal.push('bleno:create');
          return blenoOver(bleno);
        }),
    },
  ) as BleRadio;
  opened.push(radio);
  return { radio, noble, bleno, clock, logger, identity: identity ?? GATEWAY, journal, nobleCalls, blenoCalls };
}

async function until(what: string, condition: () => boolean, rounds = 60): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (condition()) return;
    await settle(1);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Open and wait until the GATT server advertises. */
async function openAdvertising(s: Setup): Promise<void> {
  await s.radio.open();
  await until('advertising', () => s.bleno.advertising);
}

function nextFrame(radio: Radio): Promise<InboundFrame> {
  return new Promise((resolve) => radio.once('frame', resolve));
}

const idOf = (address: string): string => address.replace(/:/g, '').toLowerCase();
const PHONE = 'aa:bb:cc:00:00:0a';
const phone: FakePeripheralSpec = { address: PHONE };
const ON = Uint8Array.of(0x01, 0x00);
const INDICATIONS = Uint8Array.of(0x02, 0x00);
const OFF = Uint8Array.of(0x00, 0x00);

describe('gateway/radios BLE peripheral (bleno over a fake binding)', () => {
  afterEach(async () => {
    for (const radio of opened.splice(0)) await radio.close();
  });

  describe('advertising', () => {
    it('advertises the 128-bit mesh service UUID only, in the advertisement and the scan response', async () => {
      const s = setup();
      await openAdvertising(s);
      const adv = eirFields(s.bleno.advertisement!);
      assert.deepEqual(adv.map((f) => f.type), [0x01, 0x07], 'flags and the complete list of 128-bit UUIDs, nothing else');
      assert.equal(adv[0].payload.toString('hex'), '06', 'LE general discoverable, no BR/EDR');
      assert.equal(Buffer.from(adv[1].payload).reverse().toString('hex'), SERVICE);
      const scan = eirFields(s.bleno.scanResponse!);
      assert.deepEqual(scan.map((f) => f.type), [0x07]);
      assert.equal(Buffer.from(scan[0].payload).reverse().toString('hex'), SERVICE);
      assert.equal(s.radio.status().detail, 'hci0; peripheral advertising');
      assert.equal(s.radio.peripheralState, 'advertising');
    });

    it('adds advertise_name to the scan response, alone when it does not fit beside the UUID', async () => {
      const short = setup({ config: { peripheral: { advertise_name: 'Clawling' } } });
      await openAdvertising(short);
      const scan = eirFields(short.bleno.scanResponse!);
      assert.deepEqual(scan.map((f) => [f.type, f.type === 0x09 ? f.payload.toString('utf8') : '']), [[0x07, ''], [0x09, 'Clawling']]);
      assert.deepEqual(eirFields(short.bleno.advertisement!).map((f) => f.type), [0x01, 0x07]);

      const long = setup({ config: { peripheral: { advertise_name: 'Clawling gateway, attic' } } });
      await openAdvertising(long);
      assert.deepEqual(eirFields(long.bleno.scanResponse!).map((f) => [f.type, f.payload.toString('utf8')]), [[0x09, 'Clawling gateway, attic']]);
    });

    it('pauses advertising while max_clients centrals are connected, lets one more go, and resumes', async () => {
      const s = setup({ config: { peripheral: { max_clients: 2 } } });
      await openAdvertising(s);
      const a = s.bleno.connect('11:00:00:00:00:01');
      s.bleno.connect('11:00:00:00:00:02');
      await until('advertising paused', () => !s.bleno.advertising);
      assert.match(s.radio.status().detail ?? '', /peripheral full: 2 centrals connected/);
      const extra = s.bleno.connect('11:00:00:00:00:03');
      await until('the third central let go', () => !extra.connected);
      assert.equal(s.radio.peers().filter((p) => p.connected).length, 2);
      a.disconnect();
      await until('advertising again', () => s.bleno.advertising);
      assert.equal(s.radio.status().detail, 'hci0; peripheral advertising');
    });
  });

  describe('the GATT service', () => {
    it('serves MESSAGE (write, write without response, notify, indicate, CCCD), DEVICE_ID and IDENTITY (read)', async () => {
      const s = setup();
      await openAdvertising(s);
      const table = s.bleno.connect('11:22:33:44:55:66').discover();
      assert.deepEqual(table.services, ['1800', '1801', SERVICE]);
      assert.deepEqual(table.characteristics, [
        { uuid: MESSAGE, properties: ['writeWithoutResponse', 'write', 'notify', 'indicate'], hasCccd: true },
        { uuid: DEVICE_ID, properties: ['read'], hasCccd: false },
        { uuid: IDENTITY, properties: ['read'], hasCccd: false },
      ]);
    });

    it('offers MESSAGE with indicate only when peripheral.notify is off, as the reference Android peripheral', async () => {
      const s = setup({ config: { peripheral: { notify: false } } });
      await openAdvertising(s);
      const message = s.bleno.connect('11:22:33:44:55:66').discover().characteristics.find((c) => c.uuid === MESSAGE);
      assert.deepEqual(message?.properties, ['writeWithoutResponse', 'write', 'indicate']);
    });

    it('serves the gateway address in DEVICE_ID, honouring offsets', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(185);
      const whole = await central.read(DEVICE_ID);
      assert.equal(Buffer.from(whole.data).toString('utf8'), s.identity.address);
      assert.equal(whole.data.length, 44);
      assert.equal(Buffer.from((await central.read(DEVICE_ID, 40)).data).toString('utf8'), s.identity.address.slice(40));
      assert.equal((await central.read(DEVICE_ID, 45)).result, ATT.INVALID_OFFSET);
      assert.equal((await central.read(MESSAGE)).result, ATT.READ_NOT_PERM);
    });

    it('serves pubkey ‖ sig ‖ MeshAdvertisementData v2 in IDENTITY, which a central verifies against DEVICE_ID', async () => {
      const s = setup();
      await openAdvertising(s);
      await s.clock.tick(5_000);
      const central = s.bleno.connect('11:22:33:44:55:66'); // ATT MTU 23: a long read of 22-byte pieces
      const deviceId = Buffer.from((await central.readLong(DEVICE_ID)).data).toString('utf8');
      const { data: blob, reads } = await central.readLong(IDENTITY);
      assert.equal(blob.length, 32 + 64 + 19);
      assert.equal(reads, 6, 'Read, then Read Blob at 22, 44, 66, 88 and 110');
      const check = verifyIdentityBlob(blob, deviceId);
      assert.ok(check.ok, 'the rule the reference centrals apply');
      assert.equal(deriveAddress(blob.slice(0, 32)), s.identity.address);
      const adv = parseAdvertisement(blob.slice(96));
      assert.deepEqual(adv, {
        version: 2,
        degree: 1,
        freeSlots: 4 + 3,
        score: 128,
        uptimeS: 5,
        nodeIdHash: nodeIdHash(s.identity.address),
        featureFlags: 0,
      });
    });

    it('keeps one IDENTITY value through a long read, and builds a fresh one at offset 0', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66'); // ATT MTU 23: 22 bytes per read
      const pieces = [(await central.read(IDENTITY)).data];
      await s.clock.tick(7_000); // the uptime inside adv moves on between the pieces
      for (let offset = 22; offset < 115; offset += 22) pieces.push((await central.read(IDENTITY, offset)).data);
      const whole = Uint8Array.from(Buffer.concat(pieces));
      assert.equal(whole.length, 115);
      assert.ok(verifyIdentityBlob(whole, s.identity.address).ok, 'pieces of one value: the signature still verifies');
      assert.equal(parseAdvertisement(whole.slice(96))?.uptimeS, 0);
      const fresh = await central.readLong(IDENTITY);
      assert.equal(parseAdvertisement(fresh.data.slice(96))?.uptimeS, 7, 'offset 0 starts a new value');
      assert.ok(verifyIdentityBlob(fresh.data, s.identity.address).ok);
    });

    it('is accepted by the gateway central role, the verifier that runs against phones', async () => {
      const server = setup();
      await openAdvertising(server);
      const reader = server.bleno.connect('11:22:33:44:55:66');
      reader.exchangeMtu(517);
      const deviceId = (await reader.read(DEVICE_ID)).data;
      const identityBlob = (await reader.read(IDENTITY)).data;
      // Another gateway: one with the same identity refuses it as itself.
      const client = setup({
        config: { peripheral: { enabled: false } },
        identity: identityFromSeed('another gateway'),
        peripherals: [{ address: 'cc:00:00:00:00:01', deviceId, identityBlob }],
      });
      const up = nextEvent(client.radio, 'peer', (p) => p.change === 'up');
      await client.radio.open();
      assert.equal((await up).address, server.identity.address);
    });
  });

  describe('frames in and out', () => {
    it('reports a connected central as a peer and reassembles its fragmented writes into a frame', async () => {
      const s = setup();
      await openAdvertising(s);
      const up = nextEvent(s.radio, 'peer', (p) => p.change === 'up');
      const central = s.bleno.connect('11:22:33:44:55:66');
      const peer = await up;
      assert.deepEqual([peer.id, peer.connected, peer.address, peer.wireVersions], ['112233445566', true, undefined, []]);
      assert.equal(central.exchangeMtu(185), 185);
      const frame = bigFrame(1500);
      const got = nextFrame(s.radio);
      await central.sendFrame(frame);
      const inbound = await got;
      assert.equal(hexOf(inbound.frame), hexOf(frame));
      assert.equal(inbound.peerId, '112233445566');
      assert.equal(inbound.peerAddress, undefined, 'a central the gateway could not verify is no transport identity');
    });

    it('drops hostile writes and keeps the link', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(517);
      const got: Uint8Array[] = [];
      s.radio.on('frame', (f) => got.push(f.frame));
      await central.write(MESSAGE, Uint8Array.of(0x4f, 0x50, 0x09, 0, 0));
      await central.write(MESSAGE, Uint8Array.of(1, 2, 3), false);
      const good = frameOf('after the noise');
      await central.sendFrame(good);
      await settle();
      assert.deepEqual(got.map(hexOf), [hexOf(good)]);
      assert.equal(s.radio.status().counters?.dropped, 2);
    });

    it('sends a frame as notifications cut to the central MTU, one at a time, min_write_gap_ms apart', async () => {
      const s = setup({ config: { min_write_gap_ms: 20 } });
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(247);
      assert.equal(central.writeCccd(MESSAGE, ON), ATT.SUCCESS);
      await settle();
      assert.equal(s.radio.peers()[0].mtu, 244);
      const frame = bigFrame(3000);
      const sent = s.radio.send('112233445566', frame);
      await settle();
      assert.equal(central.received.length, 1, 'the first fragment goes at once');
      await s.clock.tick(19);
      assert.equal(central.received.length, 1, 'not before the gap');
      await s.clock.tick(1);
      assert.equal(central.received.length, 2);
      await s.clock.tick(20 * 20);
      await sent;
      assert.equal(Math.max(...central.received.map((r) => r.bytes.length)), 244, 'ATT_MTU − 3');
      for (let i = 1; i < central.received.length; i++) assert.ok(central.received[i].at - central.received[i - 1].at >= 20);
      assert.ok(central.received.every((r) => r.kind === 'notify'));
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
    });

    it('lifts the HCI server MTU cap: a phone asking for 517 gets 512-byte fragments (the reference ceiling)', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      assert.equal(central.exchangeMtu(517), 517);
      central.writeCccd(MESSAGE, ON);
      await s.radio.send('112233445566', bigFrame(4000));
      assert.equal(Math.max(...central.received.map((r) => r.bytes.length)), 512);
    });

    it('never sends more than a small-MTU central takes, and refuses what 512 such fragments cannot carry', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(100);
      central.writeCccd(MESSAGE, ON);
      const frame = bigFrame(1000);
      await s.radio.send('112233445566', frame);
      assert.equal(Math.max(...central.received.map((r) => r.bytes.length)), 97);
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
      await assert.rejects(s.radio.send('112233445566', bigFrame((97 - 46) * 512 + 500)), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
    });

    it('uses an MTU exchanged after the subscription when one central is connected', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.writeCccd(MESSAGE, ON); // at ATT MTU 23: 20-byte notifications, too small for a fragment
      await assert.rejects(s.radio.send('112233445566', frameOf('too early')), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
      central.exchangeMtu(247);
      const frame = bigFrame(1000);
      await s.radio.send('112233445566', frame);
      assert.equal(Math.max(...central.received.map((r) => r.bytes.length)), 244);
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
    });

    it('keeps to the subscription figure when the MTU exchange cannot be placed (several centrals)', async () => {
      const s = setup();
      await openAdvertising(s);
      const a = s.bleno.connect('11:00:00:00:00:01');
      const b = s.bleno.connect('11:00:00:00:00:02');
      a.exchangeMtu(188);
      a.writeCccd(MESSAGE, ON);
      b.writeCccd(MESSAGE, ON);
      b.exchangeMtu(247); // bleno reports it without the connection
      await s.radio.send('110000000001', bigFrame(800));
      assert.equal(Math.max(...a.received.map((r) => r.bytes.length)), 185);
      await assert.rejects(s.radio.send('110000000002', frameOf('b')), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
      b.writeCccd(MESSAGE, ON); // subscribing again reports the current figure
      await s.radio.send('110000000002', bigFrame(800));
      assert.equal(Math.max(...b.received.map((r) => r.bytes.length)), 244);
    });

    it('with indications, waits for each confirmation, and goes on after the 250 ms indicate gate without one', async () => {
      const s = setup({ config: { min_write_gap_ms: 20, peripheral: { notify: false } } });
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.autoConfirm = false;
      central.exchangeMtu(188);
      central.writeCccd(MESSAGE, INDICATIONS);
      const frame = bigFrame(600); // 185-byte fragments: 5 of them
      const sent = s.radio.send('112233445566', frame);
      await settle();
      assert.equal(central.received.length, 1);
      assert.equal(central.received[0].kind, 'indicate');
      await s.clock.tick(200);
      assert.equal(central.received.length, 1, 'no confirmation yet: one outstanding indication');
      central.confirm();
      await s.clock.tick(20);
      assert.equal(central.received.length, 2, 'the next one a gap after the confirmation');
      await s.clock.tick(249);
      assert.equal(central.received.length, 2);
      await s.clock.tick(1 + 20);
      assert.equal(central.received.length, 3, 'the gate opened');
      central.autoConfirm = true;
      central.confirm();
      await s.clock.tick(500);
      await sent;
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
    });
  });

  describe('subscription and disconnection', () => {
    it('accepts 01 00 and 02 00 in the CCCD, and refuses a value that is not 2 bytes', async () => {
      const s = setup();
      await openAdvertising(s);
      for (const [address, cccd] of [['11:00:00:00:00:01', ON], ['11:00:00:00:00:02', INDICATIONS]] as const) {
        const central = s.bleno.connect(address);
        central.exchangeMtu(247);
        assert.equal(central.writeCccd(MESSAGE, cccd), ATT.SUCCESS);
        const frame = frameOf(`to ${address}`);
        await s.radio.send(idOf(address), frame);
        assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
      }
      assert.equal(s.bleno.connect('11:00:00:00:00:03').writeCccd(MESSAGE, Uint8Array.of(1)), ATT.INVAL_ATTR_VALUE_LEN);
    });

    it('holds a frame for a central that has not subscribed yet, and sends it once it does', async () => {
      const s = setup();
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(247);
      const frame = frameOf('waiting for the CCCD');
      let done = false;
      const sent = s.radio.send('112233445566', frame).then(() => (done = true));
      await s.clock.tick(1_000);
      assert.equal(done, false);
      central.writeCccd(MESSAGE, ON);
      await sent;
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
    });

    it('refuses with NOT_SUBSCRIBED when the central does not subscribe within handshake_timeout_ms, or unsubscribes mid-frame', async () => {
      const s = setup({ config: { handshake_timeout_ms: 2_000, min_write_gap_ms: 20 } });
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(188);
      const never = s.radio.send('112233445566', frameOf('nobody listens'));
      const check = assert.rejects(never, (e: unknown) => e instanceof RadioError && e.code === 'NOT_SUBSCRIBED');
      await s.clock.tick(2_000);
      await check;

      central.writeCccd(MESSAGE, ON);
      const cut = s.radio.send('112233445566', bigFrame(2000));
      const cutCheck = assert.rejects(cut, (e: unknown) => e instanceof RadioError && e.code === 'NOT_SUBSCRIBED');
      await settle();
      assert.equal(central.received.length, 1);
      central.writeCccd(MESSAGE, OFF);
      await s.clock.tick(100);
      await cutCheck;
      assert.equal(central.received.length, 1, 'nothing after the unsubscription');
      assert.equal(s.radio.peers()[0].connected, true, 'still connected: it can subscribe again');
    });

    it('reports a central that disconnects as down, and fails the frame on its way with PEER_LOST', async () => {
      const s = setup({ config: { min_write_gap_ms: 20 } });
      await openAdvertising(s);
      const central = s.bleno.connect('11:22:33:44:55:66');
      central.exchangeMtu(188);
      central.writeCccd(MESSAGE, ON);
      const sent = s.radio.send('112233445566', bigFrame(2000));
      const check = assert.rejects(sent, (e: unknown) => e instanceof RadioError && e.code === 'PEER_LOST');
      await settle();
      const down = nextEvent(s.radio, 'peer', (p) => p.change === 'down');
      central.disconnect();
      assert.equal((await down).id, '112233445566');
      await s.clock.tick(100);
      await check;
      assert.equal(s.bleno.advertising, true);
      await assert.rejects(s.radio.send('112233445566', frameOf('gone')), (e: unknown) => e instanceof RadioError && e.code === 'PEER_LOST');
    });

    it('drops every central when the adapter powers off, and advertises again when it is back', async () => {
      const s = setup();
      await openAdvertising(s);
      s.bleno.connect('11:22:33:44:55:66');
      await settle();
      const down = nextEvent(s.radio, 'peer', (p) => p.change === 'down');
      s.bleno.setAdapterState('poweredOff');
      await down;
      assert.match(s.radio.status().detail ?? '', /peripheral off: hci0: adapter poweredOff/);
      s.bleno.setAdapterState('poweredOn');
      await until('advertising again', () => s.bleno.advertising);
    });
  });

  describe('one peer per device', () => {

    it('merges a phone that is both our central-side peer and our GATT client (same link address), and sends over the server link', async () => {
      const s = setup({ peripherals: [phone] });
      const events: string[] = [];
      s.radio.on('peer', (p) => events.push(`${p.change}:${p.id}`));
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      const device = s.noble.get(idOf(PHONE));
      const central = s.bleno.connect(PHONE);
      central.exchangeMtu(247);
      central.writeCccd(MESSAGE, ON);
      await settle();
      assert.equal(s.radio.peers().length, 1);
      assert.deepEqual(events.filter((e) => e.startsWith('up:')), [`up:${idOf(PHONE)}`], 'one up, for the first link');
      const peer = s.radio.peers()[0];
      assert.equal(peer.address, device.identity.address);
      assert.equal(peer.mtu, 244);

      const out = frameOf('over the server link');
      await s.radio.send(idOf(PHONE), out);
      assert.deepEqual(central.frames.map(hexOf), [hexOf(out)]);
      assert.equal(device.writes.length, 0, 'not written to its GATT server as well');

      const got = nextFrame(s.radio);
      await central.sendFrame(frameOf('from its central'));
      const inbound = await got;
      assert.equal(inbound.peerId, idOf(PHONE));
      assert.equal(inbound.peerAddress, device.identity.address, 'the address verified on the central link');

      central.disconnect();
      await settle();
      assert.ok(!events.includes(`down:${idOf(PHONE)}`), 'still reachable over the central link');
      const back = frameOf('over the central link again');
      await s.radio.send(idOf(PHONE), back);
      assert.deepEqual(device.frames.map(hexOf), [hexOf(back)]);
      const down = nextEvent(s.radio, 'peer', (p) => p.change === 'down');
      s.noble.drop(device.id);
      assert.equal((await down).id, idOf(PHONE));
    });

    it('keeps what the peer taught about its wire versions when its second link joins', async () => {
      const s = setup({ peripherals: [phone] });
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      s.noble.sendFrame(idOf(PHONE), frameOf('binary first', 'binary'));
      await settle();
      assert.deepEqual(s.radio.peers()[0].wireVersions, [1]);
      const central = s.bleno.connect(PHONE);
      central.exchangeMtu(247);
      central.writeCccd(MESSAGE, ON);
      await settle();
      assert.deepEqual(s.radio.peers()[0].wireVersions, [1]);
    });

    it('keeps the peer up while its server link outlives the central link', async () => {
      const s = setup({ peripherals: [phone] });
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      const central = s.bleno.connect(PHONE);
      central.exchangeMtu(247);
      central.writeCccd(MESSAGE, ON);
      const events: string[] = [];
      s.radio.on('peer', (p) => events.push(p.change));
      s.noble.drop(idOf(PHONE));
      await settle();
      assert.ok(!events.includes('down'));
      assert.equal(s.radio.peers()[0].connected, true);
      const frame = frameOf('still here');
      await s.radio.send(idOf(PHONE), frame);
      assert.deepEqual(central.frames.map(hexOf), [hexOf(frame)]);
    });

    it('remembers the verified address of a link address for a client that connects after the central link ended', async () => {
      const s = setup({ peripherals: [phone] });
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      const verified = s.radio.peers()[0].address;
      const down = nextEvent(s.radio, 'peer', (p) => p.change === 'down');
      s.noble.drop(idOf(PHONE));
      await down;
      const up = nextEvent(s.radio, 'peer', (p) => p.change === 'up');
      s.bleno.connect(PHONE);
      const peer = await up;
      assert.equal(peer.id, idOf(PHONE));
      assert.equal(peer.address, verified);
    });

    it('keeps a client with another link address apart, without an address, and does not connect back to a client on one adapter', async () => {
      const s = setup({ peripherals: [phone, { address: 'aa:bb:cc:00:00:0b' }], config: { max_peers: 4 } });
      s.noble.drop('aabbcc00000b'); // not heard by the central role yet
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      s.bleno.connect('aa:bb:cc:00:00:0b');
      await settle();
      s.noble.restore('aabbcc00000b');
      s.noble.advertise('aabbcc00000b');
      await settle(10);
      const peers = s.radio.peers().filter((p) => p.connected);
      assert.deepEqual(peers.map((p) => [p.id, p.address !== undefined]).sort(), [[idOf(PHONE), true], ['aabbcc00000b', false]]);
      assert.equal(s.noble.get('aabbcc00000b').connectRequests, 0, 'already linked to us: no second link from the same controller');
    });

    it('with the peripheral on its own adapter, connects back to a client and merges it once verified', async () => {
      const s = setup({ peripherals: [{ address: 'aa:bb:cc:00:00:0b', connectable: true }], config: { peripheral: { adapter: 'hci1' } } });
      s.noble.drop('aabbcc00000b');
      await openAdvertising(s);
      const events: string[] = [];
      s.radio.on('peer', (p) => events.push(`${p.change}:${p.address ?? '-'}`));
      s.bleno.connect('aa:bb:cc:00:00:0b');
      await settle();
      s.noble.restore('aabbcc00000b');
      s.noble.advertise('aabbcc00000b');
      await until('verified', () => s.radio.peers()[0]?.address !== undefined);
      const address = s.noble.get('aabbcc00000b').identity.address;
      assert.deepEqual(events, ['up:-', `updated:${address}`]);
      assert.equal(s.radio.peers().length, 1);
    });

    it('refuses a second central link to a device already linked under its verified address (an address rotation)', async () => {
      const s = setup({ peripherals: [{ address: 'aa:bb:cc:00:00:01', seed: 'one phone', rssi: -40 }, { address: 'aa:bb:cc:00:00:02', seed: 'one phone', rssi: -50 }], config: { max_peers: 4 } });
      await s.radio.open();
      await peerConnected(s.radio, 'aabbcc000001');
      await settle(20);
      assert.deepEqual(s.radio.peers().filter((p) => p.connected).map((p) => p.id), ['aabbcc000001']);
      assert.equal(s.noble.get('aabbcc000002').connected, false);
      const refused = s.logger.lines.find((l) => (l.obj as { reason?: string }).reason === 'DUPLICATE_PEER');
      assert.ok(refused, 'refused as a duplicate');
    });

    it('applies allow_peers to centrals: by link address, or by the address known through a central link', async () => {
      const s = setup({ peripherals: [phone], config: { allow_peers: [identityFromSeed(PHONE).address] } });
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      const stranger = s.bleno.connect('11:22:33:44:55:66');
      const known = s.bleno.connect(PHONE);
      await until('the stranger let go', () => !stranger.connected);
      assert.equal(known.connected, true);
      assert.deepEqual(s.radio.peers().filter((p) => p.connected).map((p) => p.id), [idOf(PHONE)]);
    });
  });

  describe('both roles on one adapter', () => {
    it('keeps noble to legacy commands and starts bleno after noble reported its adapter state', async () => {
      const s = setup();
      await openAdvertising(s);
      assert.deepEqual(s.nobleCalls, [{ adapter: 0, legacy: true }]);
      assert.deepEqual(s.blenoCalls, [{ adapter: 0, sysDir: undefined }]);
      const order = (e: string): number => s.journal.indexOf(e);
      assert.ok(order('noble:poweredOn') >= 0 && order('noble:poweredOn') < order('bleno:create'), s.journal.join(' '));
      assert.ok(order('bleno:poweredOn') < order('bleno:advertise'));
    });

    it('leaves noble alone when the peripheral has an adapter of its own, or is off', async () => {
      const own = setup({ config: { peripheral: { adapter: 'hci1' } } });
      await openAdvertising(own);
      assert.deepEqual(own.nobleCalls, [{ adapter: 0, legacy: false }]);
      assert.equal(own.blenoCalls[0].adapter, 1);
      assert.match(own.radio.status().detail ?? '', /^hci0; peripheral advertising$/);
      const off = setup({ config: { peripheral: { enabled: false } } });
      await off.radio.open();
      await settle();
      assert.deepEqual(off.nobleCalls, [{ adapter: 0, legacy: false }]);
      assert.deepEqual(off.blenoCalls, []);
      assert.equal(off.radio.status().detail, 'hci0');
      assert.equal(off.radio.peripheralState, undefined);
    });

    it('advertises again after the controller reset noble sends before a first connection', async () => {
      const s = setup({ peripherals: [phone], config: { discovery_window_ms: 250 } });
      // What noble's HCI Reset before connecting does to the shared controller.
      let resets = 0;
      const connect = s.noble.connect.bind(s.noble);
      s.noble.connect = (id, parameters) => {
        resets += 1;
        s.bleno.resetController();
        connect(id, parameters);
      };
      await openAdvertising(s);
      assert.equal(s.bleno.advertiseStarts, 1);
      await s.clock.tick(250); // the discovery window ends: the first connection, and the reset
      await peerConnected(s.radio, idOf(PHONE));
      assert.equal(resets, 1);
      await until('advertising again', () => s.bleno.advertising);
      assert.equal(s.bleno.advertiseStarts, 2);
      assert.ok(s.bleno.advertisingParameterWrites >= 1, 'the 100 ms advertising interval restored');
    });

    it('does not touch advertising on a peripheral adapter of its own', async () => {
      const s = setup({ peripherals: [phone], config: { peripheral: { adapter: 'hci1' } } });
      await openAdvertising(s);
      await peerConnected(s.radio, idOf(PHONE));
      await s.clock.tick(1_000);
      assert.equal(s.bleno.advertiseStarts, 1);
    });
  });

  describe('when the peripheral role cannot run, the central role goes on', () => {
    async function centralStillWorks(s: Setup): Promise<void> {
      await peerConnected(s.radio, idOf(PHONE));
      assert.equal(s.radio.status().state, 'ready');
      const frame = frameOf('central role');
      await s.radio.send(idOf(PHONE), frame);
      assert.deepEqual(s.noble.get(idOf(PHONE)).frames.map(hexOf), [hexOf(frame)]);
    }

    it('bleno missing', async () => {
      const s = setup({
        peripherals: [phone],
        bleno: () => {
          throw new RadioError('UNSUPPORTED', 'the optional package @stoprocent/bleno is not usable here (Cannot find module)');
        },
      });
      await s.radio.open();
      await centralStillWorks(s);
      assert.match(s.radio.status().detail ?? '', /^hci0; peripheral unsupported: the optional package @stoprocent\/bleno/);
      assert.equal(s.radio.peripheralState, 'unsupported');
    });

    it('no adapter: the real loader checks sysfs and starts nothing of bleno', async () => {
      const sysDir = fs.mkdtempSync(path.join(os.tmpdir(), 'radios-sys-'));
      try {
        assert.throws(() => loadBleno({ adapter: 3, sysDir }), (e: unknown) => e instanceof RadioError && e.code === 'UNSUPPORTED' && /hci3: no such Bluetooth adapter/.test(e.message));
        const s = setup({ peripherals: [phone], bleno: (o) => loadBleno({ ...o, sysDir }) });
        await s.radio.open();
        await centralStillWorks(s);
        assert.match(s.radio.status().detail ?? '', /peripheral unsupported: hci0: no such Bluetooth adapter/);
      } finally {
        fs.rmSync(sysDir, { recursive: true, force: true });
      }
    });

    it('an adapter bleno cannot use', async () => {
      const s = setup({ peripherals: [phone], blenoState: 'unsupported' });
      await s.radio.open();
      await centralStillWorks(s);
      await until('reported', () => /peripheral unsupported: hci0: no Bluetooth LE adapter usable in the peripheral role/.test(s.radio.status().detail ?? ''));
    });

    it('no permission', async () => {
      const s = setup({ peripherals: [phone], blenoState: 'unauthorized' });
      await s.radio.open();
      await centralStillWorks(s);
      await until('reported', () => /peripheral error: .*setcap/.test(s.radio.status().detail ?? ''));
    });

    it('an adapter that refuses to advertise, retried after reconnect.max_ms', async () => {
      const s = setup({ peripherals: [phone] });
      s.bleno.refuseAdvertising = 'Command Disallowed';
      await s.radio.open();
      await centralStillWorks(s);
      await until('reported', () => /peripheral unsupported: hci0: the adapter refused to advertise \(Command Disallowed\); retrying in 5 s/.test(s.radio.status().detail ?? ''));
      s.bleno.refuseAdvertising = undefined;
      await s.clock.tick(5_000);
      await until('advertising', () => s.bleno.advertising);
      assert.match(s.radio.status().detail ?? '', /peripheral advertising/);
    });

    it('no gateway identity to serve', async () => {
      const s = setup({ peripherals: [phone], identity: null });
      await s.radio.open();
      await centralStillWorks(s);
      assert.deepEqual(s.blenoCalls, [], 'bleno is not loaded for nothing');
      assert.match(s.radio.status().detail ?? '', /peripheral unsupported: the radio was given no gateway identity/);
    });
  });

  it('removes the SIGINT handler the binding installs, and stops bleno on close', async () => {
    const s = setup();
    await openAdvertising(s);
    const handler = s.bleno._sigIntHandler;
    assert.equal(typeof handler, 'function');
    assert.equal(process.listeners('SIGINT').includes(handler as () => void), false);
    s.bleno.connect('11:22:33:44:55:66');
    await settle();
    assert.equal(s.radio.peers().length, 1);
    await s.radio.close();
    assert.equal(s.bleno.stopped, true);
    assert.equal(s.bleno.advertising, false);
    assert.equal(s.radio.status().state, 'stopped');
  });
});
