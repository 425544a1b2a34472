import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRadio, PeerAdmission, type Radio } from '../../../../gateway/radios';
import { BleRadio } from '../../../../gateway/radios/ble/ble-radio';
import { detachNobleSignalHandlers, type NobleLike } from '../../../../gateway/radios/ble/ble-noble';
import { buildAdvertisement, buildIdentityBlob, identityFromSeed } from '../../../../gateway/radios/mesh-identity';
import type { BleRadioConfig } from '../../../../gateway/radios/radio-config';
import { RadioError } from '../../../../gateway/radios/radio';
import { encodeFragments } from '../../../../lib/mesh/ble-fragment';
import { FakeNobleBinding, type FakePeripheralSpec, nobleOver, SERVICE } from '../support/fake-noble-binding';
import { bigFrame, frameOf, hexOf } from '../support/frames';
import { ManualClock, settle } from '../support/manual-clock';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';

interface Setup {
  radio: BleRadio;
  fake: FakeNobleBinding;
  clock: ManualClock;
  logger: TestLogger;
}

const opened: Radio[] = [];

function setup(peripherals: FakePeripheralSpec[], config: Partial<BleRadioConfig> = {}, adapterState = 'poweredOn'): Setup {
  const clock = new ManualClock();
  const fake = new FakeNobleBinding(adapterState);
  fake.now = () => clock.now();
  for (const spec of peripherals) fake.add(spec);
  const logger = new TestLogger();
  // The central role alone; the GATT server has its own tests (ble-peripheral.test.ts).
  const radio = createRadio(
    { id: 'ble0', kind: 'ble', min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 5_000 }, peripheral: { enabled: false }, ...config },
    { logger, clock, stateDir: '/tmp/radios-test-state', noble: () => nobleOver(fake), random: () => 0 },
  ) as BleRadio;
  opened.push(radio);
  return { radio, fake, clock, logger };
}

const A = { address: 'aa:bb:cc:00:00:0a' };
const B = { address: 'aa:bb:cc:00:00:0b' };
const C = { address: 'aa:bb:cc:00:00:0c' };
const id = (spec: { address: string }): string => spec.address.replace(/:/g, '');

describe('gateway/radios BleRadio (noble over a fake binding)', () => {
  afterEach(async () => {
    for (const radio of opened.splice(0)) await radio.close();
  });

  describe('scanning', () => {
    it('scans for the mesh service in the spelling the HCI binding compares, with duplicates', async () => {
      const { radio, fake } = setup([A]);
      await radio.open();
      await peerConnected(radio, id(A));
      assert.deepEqual(fake.scanFilter, [SERVICE]);
      assert.equal(fake.allowDuplicates, true);
    });

    it('ignores peripherals that do not advertise the mesh service', async () => {
      const { radio, fake } = setup([{ address: 'aa:bb:cc:00:00:99', advertisedServices: ['180d'] }, A]);
      await radio.open();
      await peerConnected(radio, id(A));
      assert.equal(fake.get('aabbcc000099').connectRequests, 0);
    });

    it('restarts scanning after the HCI binding stops it to connect, and when it stops on its own', async () => {
      const { radio, fake, clock } = setup([A], { scan_restart_ms: 1_000 });
      await radio.open();
      await peerConnected(radio, id(A));
      await settle();
      assert.equal(fake.scanning, true, 'scanning again after the connection');
      const before = fake.startScanningCalls;
      // The controller stops scanning by itself (firmware hiccup); noble reports scanStop.
      fake.stopScanning();
      await settle();
      assert.equal(fake.scanning, true);
      assert.equal(radio.scanning, true);
      assert.equal(fake.startScanningCalls, before + 1);
      await clock.tick(1_000);
      assert.equal(fake.startScanningCalls, before + 1, 'housekeeping leaves a running scan alone');
    });
  });

  describe('handshake', () => {
    it('asks for MTU 517, reads DEVICE_ID and IDENTITY, subscribes, and reports the verified address and MTU', async () => {
      const { radio, fake } = setup([{ ...A, maxMtu: 247 }]);
      const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
      await radio.open();
      const peer = await up;
      const device = fake.get(id(A));
      assert.equal(peer.address, device.identity.address);
      assert.equal(peer.mtu, 244, 'ATT MTU 247 minus the 3-byte ATT header');
      assert.equal(device.negotiatedMtu, 247, 'the gateway asked for 517; the peer allowed 247');
      assert.equal(device.subscribed, true);
      assert.deepEqual(peer.wireVersions, [], 'BLE carries no wire versions; the router learns them from key packages');
    });

    it('marks a peer binary-capable once it has sent a binary v1 frame', async () => {
      const { radio, fake } = setup([A]);
      await radio.open();
      await peerConnected(radio, id(A));
      fake.sendFrame(id(A), frameOf('json first', 'json'));
      await settle();
      assert.deepEqual(radio.peers()[0].wireVersions, []);
      const updated = nextEvent(radio, 'peer', (p) => p.change === 'updated');
      fake.sendFrame(id(A), frameOf('then binary', 'binary'));
      assert.deepEqual((await updated).wireVersions, [1]);
    });

    it('sizes fragments by the negotiated MTU with the reference floor of 185', async () => {
      const { radio, fake } = setup([{ ...A, maxMtu: 247 }, { ...B, maxMtu: 100 }], { max_peers: 2 });
      await radio.open();
      await peerConnected(radio, id(A));
      await peerConnected(radio, id(B));
      const frame = bigFrame(3000);
      await radio.send(id(A), frame);
      await radio.send(id(B), frame);
      const sizes = (address: string): number[] => fake.get(id({ address })).writes.map((w) => w.bytes.length);
      assert.equal(Math.max(...sizes(A.address)), 244);
      assert.equal(Math.max(...sizes(B.address)), 185);
      assert.equal(hexOf(fake.get(id(A)).frames[0]), hexOf(frame));
      assert.equal(hexOf(fake.get(id(B)).frames[0]), hexOf(frame));
    });

    for (const [name, tamper, reason] of [
      ['a blob shorter than 96 bytes', (blob: Uint8Array) => blob.slice(0, 95), 'IDENTITY_TOO_SHORT'],
      ['a signature that does not verify', (blob: Uint8Array) => Uint8Array.from(blob, (b, i) => (i === 40 ? b ^ 1 : b)), 'IDENTITY_BAD_SIGNATURE'],
    ] as const) {
      it(`refuses a peer with ${name}, disconnects it and waits the longest delay before trying again`, async () => {
        const good = identityFromSeed('victim');
        const spec = { ...A, seed: 'victim', identityBlob: tamper(buildIdentityBlob(good, buildAdvertisement())) };
        const { radio, fake, clock, logger } = setup([spec], { reconnect: { initial_ms: 100, max_ms: 5_000 } });
        await radio.open();
        await settle(10);
        const device = fake.get(id(A));
        assert.equal(device.connectRequests, 1);
        assert.equal(device.connected, false, 'disconnected after the refusal');
        assert.equal(radio.peers().length, 0);
        const warning = logger.find('warn', 'BLE peer refused or unreachable');
        assert.equal((warning?.obj as { reason?: string }).reason, reason);
        assert.equal(radio.status().counters?.dropped, 1);
        await clock.tick(4_000);
        fake.advertise(device.id);
        await settle();
        assert.equal(device.connectRequests, 1, 'not retried before reconnect.max_ms');
        await clock.tick(1_000);
        fake.advertise(device.id);
        await settle(10);
        assert.equal(device.connectRequests, 2);
      });
    }

    it('refuses its own GATT server (found by the central on another adapter) without a warning, and retries it only at the longest delay', async () => {
      const clock = new ManualClock();
      const fake = new FakeNobleBinding('poweredOn');
      fake.now = () => clock.now();
      fake.add({ ...A, seed: 'this gateway' });
      const logger = new TestLogger();
      const radio = createRadio(
        { id: 'ble0', kind: 'ble', min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 5_000 }, peripheral: { enabled: false } },
        { logger, clock, stateDir: '/tmp/radios-test-state', noble: () => nobleOver(fake), random: () => 0, identity: identityFromSeed('this gateway') },
      ) as BleRadio;
      opened.push(radio);
      await radio.open();
      await settle(10);
      const device = fake.get(id(A));
      assert.equal(device.connectRequests, 1);
      assert.equal(device.connected, false);
      assert.equal(radio.peers().length, 0, 'the gateway is not its own neighbour');
      assert.equal(logger.find('warn', 'BLE peer refused or unreachable'), undefined);
      assert.equal((logger.find('debug', 'BLE peer refused or unreachable')?.obj as { reason?: string }).reason, 'SELF');
      await clock.tick(4_000);
      fake.advertise(device.id);
      await settle();
      assert.equal(device.connectRequests, 1, 'not retried before reconnect.max_ms');
    });

    it('refuses a valid blob whose address is not the DEVICE_ID served', async () => {
      const other = identityFromSeed('someone else');
      const { radio, fake } = setup([{ ...A, deviceId: other.address }]);
      await radio.open();
      await settle(10);
      assert.equal(fake.get(id(A)).connected, false);
      assert.equal(radio.peers().length, 0);
    });

    it('accepts an unverified peer without an address when require_identity is off', async () => {
      const { radio } = setup([{ ...A, identityBlob: new Uint8Array(10), deviceId: 'python-peer\0\0' }], { require_identity: false });
      const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
      await radio.open();
      const peer = await up;
      assert.equal(peer.address, undefined, 'an unverified peer gets no address: it is not a transport identity');
    });

    it('backs off a peer whose DEVICE_ID is not readable yet, then connects it', async () => {
      const { radio, fake, clock } = setup([{ ...A, deviceId: '' }]);
      await radio.open();
      await settle(10);
      const device = fake.get(id(A));
      assert.equal(device.connectRequests, 1);
      assert.equal(device.connected, false);
      device.deviceId = Uint8Array.from(Buffer.from(device.identity.address));
      fake.advertise(device.id);
      await settle();
      assert.equal(device.connectRequests, 1, 'inside the backoff');
      await clock.tick(100);
      const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
      fake.advertise(device.id);
      assert.equal((await up).address, device.identity.address);
    });

    it('gives up a connection attempt after connect_timeout_ms and connects the next peer', async () => {
      const { radio, fake, clock } = setup([{ ...A, rssi: -40, hangsOnConnect: true }, { ...B, rssi: -80 }], { connect_timeout_ms: 2_000 });
      await radio.open();
      await settle(5);
      assert.equal(fake.pendingConnects, 1, 'the strongest peer is tried first and hangs');
      assert.equal(fake.get(id(B)).connectRequests, 0, 'one attempt at a time');
      await clock.tick(2_000);
      assert.equal(fake.pendingConnects, 0, 'the attempt was cancelled');
      fake.advertise(id(B));
      await peerConnected(radio, id(B));
    });

    it('gives up a handshake that stalls after handshake_timeout_ms', async () => {
      const { radio, fake, clock } = setup([{ ...A, silentReads: true }], { handshake_timeout_ms: 3_000 });
      await radio.open();
      await settle(10);
      assert.equal(fake.get(id(A)).connected, true, 'connected, waiting on reads');
      await clock.tick(3_000);
      await settle();
      assert.equal(fake.get(id(A)).connected, false);
      assert.equal(radio.peers().length, 0);
    });

    it('connects only allow_peers: by peripheral id before connecting, by address after the handshake', async () => {
      const allowedById = setup([A, B], { allow_peers: ['AA:BB:CC:00:00:0B'] });
      await allowedById.radio.open();
      await peerConnected(allowedById.radio, id(B));
      await settle(5);
      assert.equal(allowedById.fake.get(id(A)).connectRequests, 0);

      const wanted = identityFromSeed(B.address).address;
      const allowedByAddress = setup([A, B], { allow_peers: [wanted] });
      await allowedByAddress.radio.open();
      await peerConnected(allowedByAddress.radio, id(B));
      await settle(10);
      assert.deepEqual(allowedByAddress.radio.peers().filter((p) => p.connected).map((p) => p.address), [wanted]);
      assert.equal(allowedByAddress.fake.get(id(A)).connected, false, 'A was connected, identified, and let go');
    });
  });

  describe('pairing (admission: listed)', () => {
    let stateDir: string;
    beforeEach(() => {
      stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ble-pairing-'));
    });
    afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

    function listed(peripherals: FakePeripheralSpec[], clock = new ManualClock()): Setup & { admission: PeerAdmission } {
      const fake = new FakeNobleBinding('poweredOn');
      fake.now = () => clock.now();
      for (const spec of peripherals) fake.add(spec);
      const logger = new TestLogger();
      const admission = new PeerAdmission({ stateDir, clock, logger, windowMs: 60_000 });
      const radio = createRadio(
        { id: 'ble0', kind: 'ble', admission: 'listed', min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 5_000 }, peripheral: { enabled: false } },
        { logger, clock, stateDir, noble: () => nobleOver(fake), random: () => 0, admission },
      ) as BleRadio;
      opened.push(radio);
      return { radio, fake, clock, logger, admission };
    }

    it('connects nobody while no peer is listed and the window is closed', async () => {
      const { radio, fake, clock } = listed([A, B]);
      await radio.open();
      await clock.tick(20_000);
      assert.equal(fake.get(id(A)).connectRequests + fake.get(id(B)).connectRequests, 0);
      assert.equal(radio.peers().filter((p) => p.connected).length, 0);
    });

    it('admits a peer while the window is open, records its verified address, and takes only it after a restart', async () => {
      const first = listed([A]);
      first.admission.open();
      await first.radio.open();
      await peerConnected(first.radio, id(A));
      const address = identityFromSeed(A.address).address;
      assert.equal(first.admission.isPaired(address), true, 'the verified address is recorded');
      assert.deepEqual(first.admission.list().map((p) => p.ref), [address, id(A)]);
      first.admission.close();
      await first.radio.close();

      // A restart: the same state folder, the window closed; B is new and not admitted.
      const again = listed([A, B]);
      await again.radio.open();
      await peerConnected(again.radio, id(A));
      await again.clock.tick(20_000);
      assert.deepEqual(again.radio.peers().filter((p) => p.connected).map((p) => p.address), [address]);
      assert.ok(again.fake.get(id(B)).connectRequests >= 1, 'an address is listed, so B is identified before it is refused');
      assert.ok(again.logger.lines.some((l) => l.level === 'warn' && (l.obj as { reason?: string }).reason === 'NOT_ALLOWED'));
    });

    it('refuses, after the handshake, a peer whose address is not paired when addresses are listed', async () => {
      const wanted = identityFromSeed(B.address).address;
      fs.writeFileSync(path.join(stateDir, 'paired-peers.json'), JSON.stringify({ version: 1, peers: [{ ref: wanted, radio: 'ble0', admitted_at: '' }] }));
      const { radio, fake, clock } = listed([A, B]);
      await radio.open();
      await peerConnected(radio, id(B));
      await clock.tick(1_000);
      assert.equal(fake.get(id(A)).connected, false, 'A was identified and let go');
      assert.deepEqual(radio.peers().filter((p) => p.connected).map((p) => p.address), [wanted]);
    });
  });

  describe('battery and load from the IDENTITY advertisement', () => {
    it('reports them at the handshake and again after five minutes when they changed', async () => {
      const who = identityFromSeed(A.address);
      const { radio, fake, clock } = setup([{ ...A, identityBlob: buildIdentityBlob(who, buildAdvertisement({ battery: 57, load: 12 })) }]);
      await radio.open();
      await peerConnected(radio, id(A));
      const peer = radio.peers().find((p) => p.id === id(A))!;
      assert.equal(peer.battery, 57);
      assert.equal(peer.load, 12);
      fake.get(id(A)).identityBlob = buildIdentityBlob(who, buildAdvertisement({ battery: 41, load: 200 }));
      const updated = nextEvent(radio, 'peer', (p) => p.id === id(A) && p.change === 'updated' && p.battery === 41);
      await clock.tick(5 * 60_000 + 5_000);
      const p = await updated;
      assert.equal(p.load, 200);
    });

    it('leaves out a battery the node does not report, or above 100 %', async () => {
      const who = identityFromSeed(A.address);
      const { radio } = setup([{ ...A, identityBlob: buildIdentityBlob(who, buildAdvertisement({ battery: 180 })) }, B]);
      await radio.open();
      await peerConnected(radio, id(A));
      await peerConnected(radio, id(B));
      for (const p of radio.peers()) {
        assert.equal(p.battery, undefined);
        assert.equal(p.load, undefined);
      }
    });
  });

  describe('several peers', () => {
    it('keeps several links at once and routes each frame to its own peer', async () => {
      const { radio, fake } = setup([A, B, C], { max_peers: 4 });
      await radio.open();
      for (const spec of [A, B, C]) await peerConnected(radio, id(spec));
      const frames = [A, B, C].map((spec) => frameOf(`for ${spec.address}`));
      await Promise.all([A, B, C].map((spec, i) => radio.send(id(spec), frames[i])));
      [A, B, C].forEach((spec, i) => assert.deepEqual(fake.get(id(spec)).frames.map(hexOf), [hexOf(frames[i])]));
      assert.equal(radio.status().peers, 3);
    });

    it('listens for discovery_window_ms, then connects the strongest first, up to max_peers', async () => {
      const { radio, fake, clock } = setup([{ ...A, rssi: -90 }, { ...B, rssi: -50 }, { ...C, rssi: -70 }], { max_peers: 2, discovery_window_ms: 250 });
      await radio.open();
      await settle(5);
      assert.deepEqual([A, B, C].map((s) => fake.get(id(s)).connectRequests), [0, 0, 0], 'nobody chosen inside the window');
      const first = nextEvent(radio, 'peer', (p) => p.change === 'up');
      await clock.tick(250);
      assert.equal((await first).id, id(B));
      await clock.tick(250); // the scan restarted after B: a new window
      await peerConnected(radio, id(C));
      fake.advertise();
      await settle(10);
      assert.equal(fake.get(id(A)).connectRequests, 0);
      assert.equal(radio.status().peers, 2);
    });

    it('reassembles per link: two peers interleaving fragments under one message id do not mix', async () => {
      const { radio, fake } = setup([A, B], { max_peers: 2 });
      await radio.open();
      await peerConnected(radio, id(A));
      await peerConnected(radio, id(B));
      const got: Array<[string, string]> = [];
      radio.on('frame', (f) => got.push([f.peerId, hexOf(f.frame)]));
      const fa = bigFrame(900);
      const fb = bigFrame(950);
      const sharedId = '11111111-2222-4333-8444-555555555555';
      const parts = [encodeFragments(fa, sharedId, 185), encodeFragments(fb, sharedId, 185)];
      for (let i = 0; i < Math.max(parts[0].length, parts[1].length); i++) {
        if (parts[0][i]) fake.indicate(id(A), parts[0][i]);
        if (parts[1][i]) fake.indicate(id(B), parts[1][i]);
      }
      await settle();
      assert.deepEqual(got.sort(), [
        [id(A), hexOf(fa)],
        [id(B), hexOf(fb)],
      ].sort());
    });

    it('drops hostile writes and keeps the link', async () => {
      const { radio, fake } = setup([A]);
      await radio.open();
      await peerConnected(radio, id(A));
      const got: Uint8Array[] = [];
      radio.on('frame', (f) => got.push(f.frame));
      fake.indicate(id(A), Uint8Array.of(0x4f, 0x50, 0x09, 0, 0, 0));
      fake.indicate(id(A), new Uint8Array(5000));
      fake.indicate(id(A), Uint8Array.of(1, 2, 3));
      const good = frameOf('after the noise');
      fake.sendFrame(id(A), good);
      await settle();
      assert.deepEqual(got.map(hexOf), [hexOf(good)]);
      assert.equal(radio.status().counters?.dropped, 3);
      assert.equal(radio.peers()[0].connected, true);
    });
  });

  describe('writes', () => {
    it('writes without response, one at a time, at least min_write_gap_ms apart', async () => {
      const { radio, fake, clock } = setup([{ ...A, maxMtu: 188 }], { min_write_gap_ms: 20 });
      await radio.open();
      await peerConnected(radio, id(A));
      const device = fake.get(id(A));
      const frame = bigFrame(600); // 185-byte fragments carry 139 bytes each: 5 fragments
      const sent = radio.send(id(A), frame);
      await settle();
      assert.equal(device.writes.length, 1, 'the first fragment goes at once');
      await clock.tick(19);
      assert.equal(device.writes.length, 1, 'not before the gap');
      await clock.tick(1);
      assert.equal(device.writes.length, 2);
      await clock.tick(20 * 10);
      await sent;
      assert.equal(device.writes.length, 5);
      for (let i = 1; i < device.writes.length; i++) assert.ok(device.writes[i].at - device.writes[i - 1].at >= 20);
      assert.ok(device.writes.every((w) => w.withoutResponse));
      assert.equal(hexOf(device.frames[0]), hexOf(frame));
    });

    it('lets the write gate open a write whose completion never comes', async () => {
      const { radio, fake, clock } = setup([{ ...A, maxMtu: 188 }], { write_gate_ms: 30 });
      await radio.open();
      await peerConnected(radio, id(A));
      const device = fake.get(id(A));
      fake.stallWrites(device.id);
      const sent = radio.send(id(A), bigFrame(400));
      await settle();
      assert.equal(device.writes.length, 1, 'one outstanding write');
      await clock.tick(29);
      assert.equal(device.writes.length, 1);
      await clock.tick(1);
      assert.equal(device.writes.length, 2, 'the gate opened the next write');
      await clock.tick(100);
      await sent;
    });

    it('writes with response when MESSAGE offers no write-without-response', async () => {
      const { radio, fake } = setup([{ ...A, messageProperties: ['write', 'notify'] }]);
      await radio.open();
      await peerConnected(radio, id(A));
      await radio.send(id(A), frameOf('acknowledged write'));
      assert.ok(fake.get(id(A)).writes.every((w) => !w.withoutResponse));
    });

    it('refuses a frame larger than 512 fragments at the peer MTU', async () => {
      const { radio } = setup([{ ...A, maxMtu: 188 }]);
      await radio.open();
      await peerConnected(radio, id(A));
      const max = (185 - 46) * 512;
      await assert.rejects(radio.send(id(A), bigFrame(max + 400)), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
    });
  });

  describe('peer loss and reconnect', () => {
    it('reconnects a lost peer on its next advertisement once the backoff has passed, doubling the delay', async () => {
      const { radio, fake, clock } = setup([A]);
      await radio.open();
      await peerConnected(radio, id(A));
      const device = fake.get(id(A));
      for (const delay of [100, 200, 400]) {
        const down = nextEvent(radio, 'peer', (p) => p.change === 'down');
        fake.drop(device.id);
        await down;
        fake.restore(device.id);
        const requests = device.connectRequests;
        await clock.tick(delay - 1);
        fake.advertise(device.id);
        await settle();
        assert.equal(device.connectRequests, requests, `no attempt before ${delay} ms`);
        await clock.tick(1);
        const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
        fake.advertise(device.id);
        await up;
      }
    });

    it('goes degraded while the adapter is off and recovers when it is back', async () => {
      const { radio, fake } = setup([A]);
      await radio.open();
      await peerConnected(radio, id(A));
      const down = nextEvent(radio, 'peer', (p) => p.change === 'down');
      fake.setAdapterState('poweredOff');
      await down;
      assert.equal(radio.status().state, 'degraded');
      assert.match(radio.status().detail ?? '', /poweredOff/);
      fake.setAdapterState('poweredOn');
      await settle();
      assert.equal(fake.scanning, true);
      assert.equal(radio.status().state, 'ready');
    });
  });

  describe('no adapter, no permission, no package', () => {
    it('opens noble on the configured adapter', async () => {
      const asked: number[] = [];
      const fake = new FakeNobleBinding();
      const radio = createRadio({ id: 'ble3', kind: 'ble', adapter: 'hci1', peripheral: { enabled: false } }, {
        logger: new TestLogger(),
        clock: new ManualClock(),
        stateDir: '/tmp/radios-test-state',
        noble: ({ adapter }) => {
          asked.push(adapter);
          return nobleOver(fake);
        },
      });
      opened.push(radio);
      await radio.open();
      assert.deepEqual(asked, [1]);
      await settle();
      assert.deepEqual([radio.status().state, radio.status().detail], ['ready', 'hci1'], 'ready once scanning, with no peer yet');
    });

    it('reports unsupported when the adapter is missing, stops noble polling, and refuses sends', async () => {
      const { radio, fake } = setup([], {}, 'unsupported');
      await radio.open();
      assert.equal(radio.status().state, 'unsupported');
      await settle();
      assert.equal(fake.stopped, true);
      await assert.rejects(radio.send('x', frameOf('x')), (e: unknown) => e instanceof RadioError && e.code === 'NOT_READY');
    });

    it('reports error with the setcap hint when raw HCI is not permitted', async () => {
      const { radio } = setup([], {}, 'unauthorized');
      await radio.open();
      assert.equal(radio.status().state, 'error');
      assert.match(radio.status().detail ?? '', /setcap cap_net_raw,cap_net_admin\+eip/);
    });

    it('turns a noble that cannot load into unsupported without rejecting open()', async () => {
      const radio = createRadio({ id: 'ble1', kind: 'ble' }, {
        logger: new TestLogger(),
        stateDir: '/tmp/radios-test-state',
        noble: () => {
          throw new RadioError('UNSUPPORTED', 'the optional package @stoprocent/noble is not available');
        },
      });
      opened.push(radio);
      await radio.open();
      assert.equal(radio.status().state, 'unsupported');
      assert.match(radio.status().detail ?? '', /@stoprocent\/noble/);
    });

    it('opens the real noble on this host without rejecting (no adapter here: unsupported)', async function () {
      this.timeout(15_000);
      const radio = createRadio({ id: 'ble2', kind: 'ble', adapter: 'hci0' }, { logger: new TestLogger(), stateDir: '/tmp/radios-test-state' });
      opened.push(radio);
      const log = console.log;
      console.log = () => undefined; // noble's HCI binding prints its own warning for a missing adapter
      try {
        await radio.open();
        const state = radio.status().state;
        assert.notEqual(state, 'starting');
        if (!fs.existsSync('/sys/class/bluetooth/hci0')) assert.equal(state, 'unsupported');
        await settle();
        await radio.close();
        assert.equal(radio.status().state, 'stopped');
      } finally {
        console.log = log;
      }
    });

    it('removes the SIGINT handler the HCI binding installs, so the gateway shuts down gracefully', () => {
      const handler = (): void => undefined;
      process.on('SIGINT', handler);
      const noble = { _bindings: { _sigIntHandler: handler } } as unknown as NobleLike;
      detachNobleSignalHandlers(noble);
      assert.equal(process.listeners('SIGINT').includes(handler), false);
    });
  });

  it('disconnects every peer and stops noble on close', async () => {
    const { radio, fake } = setup([A, B], { max_peers: 2 });
    await radio.open();
    await peerConnected(radio, id(A));
    await peerConnected(radio, id(B));
    await radio.close();
    assert.equal(fake.get(id(A)).connected, false);
    assert.equal(fake.get(id(B)).connected, false);
    assert.equal(fake.stopped, true);
  });
});
