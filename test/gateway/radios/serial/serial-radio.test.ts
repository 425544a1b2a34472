import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SerialPortMock } from 'serialport';
import { createRadio, type Radio } from '../../../../gateway/radios';
import type { RadioConfig, SerialRadioConfig } from '../../../../gateway/radios/radio-config';
import { RadioError } from '../../../../gateway/radios/radio';
import type { SerialBackend } from '../../../../gateway/radios/serial/serial-backend';
import { FdSerialPort, type BindingOpener } from '../../../../gateway/radios/serial/fd-serial-port';
import type { SerialRadio } from '../../../../gateway/radios/serial/serial-radio';
import {
  decodeSerialHello,
  encodeSerialFrame,
  encodeSerialHello,
  SerialDeframer,
  type SerialFrame,
  SerialFrameType,
} from '../../../../lib/mesh/serial-framing';
import { frameOf, hexOf } from '../support/frames';
import { ManualClock, settle } from '../support/manual-clock';
import { nextEvent, peerConnected } from '../support/radio-suite';
import { TestLogger } from '../support/test-logger';

interface MockPortBinding {
  recording: Buffer;
  pendingRead: ((err?: Error) => void) | null;
  emitData(data: Buffer): void;
}

const binding = SerialPortMock.binding;
const radios: Radio[] = [];

/**
 * The fd route over a plain file: a real FdSerialPort whose binding opens a regular file (as serialport's opens a
 * device node), so its open fails the way it does on a device libuv cannot stream: `UNSUPPORTED`.
 */
function plainFileFdRoute(): { createFdPort: NonNullable<SerialBackend['createFdPort']>; opened: () => number; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'serial-io-'));
  const file = path.join(dir, 'not-a-tty');
  fs.writeFileSync(file, '');
  let opened = 0;
  const binding: BindingOpener = {
    open: async () => {
      opened += 1;
      const fd = fs.openSync(file, 'r+');
      return { fd, close: async () => fs.closeSync(fd) };
    },
  };
  return {
    createFdPort: ({ baudRate }) => new FdSerialPort({ path: file, baudRate, binding }),
    opened: () => opened,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function setup(config: Partial<SerialRadioConfig> = {}, createPort = true, fdRoute?: SerialBackend['createFdPort']) {
  binding.reset();
  const path = `/dev/ttyACM-${randomUUID().slice(0, 6)}`;
  if (createPort) binding.createPort(path, { record: true, vendorId: '2fe3', productId: '0100' });
  const clock = new ManualClock();
  const logger = new TestLogger();
  const ports: SerialPortMock[] = [];
  const backend: SerialBackend = {
    createPort: ({ path: p, baudRate }) => {
      const port = new SerialPortMock({ path: p, baudRate, autoOpen: false });
      ports.push(port);
      return port;
    },
    list: () => SerialPortMock.list(),
    ...(fdRoute !== undefined ? { createFdPort: fdRoute } : {}),
  };
  const radio = createRadio(
    { id: 'usb0', kind: 'serial', path, reconnect: { initial_ms: 100, max_ms: 800 }, ...config },
    { logger, clock, stateDir: '/tmp/radios-test-state', serial: backend, random: () => 0, localAddress: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf' },
  ) as SerialRadio;
  radios.push(radio);
  const device = (): MockPortBinding => (ports.at(-1) as unknown as { port: MockPortBinding }).port;
  const written = (): SerialFrame[] => new SerialDeframer().push(device().recording);
  const send = async (type: number, payload: Uint8Array): Promise<void> => {
    device().emitData(Buffer.from(encodeSerialFrame(type, payload)));
    await settle();
  };
  return { radio, clock, logger, path, ports, device, written, send };
}

describe('gateway/radios SerialRadio (binding-mock)', () => {
  afterEach(async () => {
    for (const r of radios.splice(0)) await r.close();
    binding.reset();
  });

  it('greets the device with a HELLO naming the gateway, its wire versions and its frame limit', async () => {
    const { radio, written } = setup({ max_frame_bytes: 65536 });
    await radio.open();
    await settle();
    const [hello] = written();
    assert.equal(hello.type, SerialFrameType.HELLO);
    assert.deepEqual(decodeSerialHello(hello.payload), {
      wireVersions: [1],
      address: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
      maxFrame: 65536,
      role: 'gateway',
    });
  });

  it("learns the device's address and wire versions from its HELLO, and honours its max_frame", async () => {
    const { radio, send } = setup();
    await radio.open();
    await peerConnected(radio, radio.peerId);
    const updated = nextEvent(radio, 'peer', (p) => p.change === 'updated');
    await send(SerialFrameType.HELLO, encodeSerialHello({ address: 'off1q8llllllllllllllllllllllllllllllluvweh4p', wireVersions: [1], maxFrame: 200 }));
    const peer = await updated;
    assert.equal(peer.address, 'off1q8llllllllllllllllllllllllllllllluvweh4p');
    assert.deepEqual(peer.wireVersions, [1]);
    await assert.rejects(radio.send(radio.peerId, frameOf('x'.repeat(300))), (e: unknown) => e instanceof RadioError && e.code === 'FRAME_TOO_LARGE');
    const got = new Promise<string | undefined>((resolve) => radio.once('frame', (f) => resolve(f.peerAddress)));
    await send(SerialFrameType.DATA, frameOf('from the device'));
    assert.equal(await got, 'off1q8llllllllllllllllllllllllllllllluvweh4p', 'frames carry the peer address');
  });

  it('writes a burst of frames in order, those queued behind a write in one port write, each send resolving', async () => {
    const { radio, ports, written } = setup();
    await radio.open();
    await peerConnected(radio, radio.peerId);
    const port = ports.at(-1)!;
    let portWrites = 0;
    const write = port.write.bind(port) as (...args: unknown[]) => boolean;
    (port as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
      portWrites += 1;
      return write(...args);
    };
    const frames = Array.from({ length: 20 }, (_, i) => frameOf(`ack ${i}`));
    await Promise.all(frames.map((f) => radio.send(radio.peerId, f)));
    const data = written().filter((f) => f.type === SerialFrameType.DATA);
    assert.deepEqual(data.map((f) => hexOf(f.payload)), frames.map(hexOf), 'every frame once, in order');
    assert.equal(portWrites, 2, 'the first frame alone, the 19 queued behind it in one write');
    assert.equal(radio.status().counters?.framesOut, 20);
    assert.equal(radio.status().counters?.writeErrors, 0);
  });

  it('delivers frames through line noise and reads split anywhere, counting what it dropped', async () => {
    const { radio, device } = setup();
    await radio.open();
    const got: string[] = [];
    radio.on('frame', (f) => got.push(hexOf(f.frame)));
    const a = frameOf('first');
    const b = frameOf('second', 'binary');
    const stream = Buffer.concat([
      Buffer.from('\r\nboot v2.1 ok\r\n'),
      Buffer.from(encodeSerialFrame(SerialFrameType.DATA, a)),
      Buffer.from([0xa5, 0x5a, 0x00]),
      Buffer.from(encodeSerialFrame(SerialFrameType.DATA, b)),
    ]);
    for (let i = 0; i < stream.length; i += 7) {
      device().emitData(stream.subarray(i, i + 7));
      await settle(1);
    }
    await settle();
    assert.deepEqual(got, [hexOf(a), hexOf(b)]);
    assert.ok((radio.status().counters?.dropped ?? 0) >= 2);
  });

  it('answers PING with a PONG echoing the payload, and counts unknown frame types as dropped', async () => {
    const { radio, send, written } = setup();
    await radio.open();
    await send(SerialFrameType.PING, Uint8Array.of(1, 2, 3));
    await send(0x7e, Uint8Array.of(9));
    await settle();
    const pong = written().find((f) => f.type === SerialFrameType.PONG);
    assert.deepEqual(pong?.payload, Uint8Array.of(1, 2, 3));
    assert.equal(radio.status().counters?.dropped, 1);
  });

  it('reopens after an unplug (read error → disconnect) with growing backoff until the device is back', async () => {
    const { radio, clock, device, path } = setup();
    await radio.open();
    await peerConnected(radio, radio.peerId);
    await settle(); // the stream has a read waiting on the port
    const down = nextEvent(radio, 'peer', (p) => p.change === 'down');
    binding.reset(); // the device node is gone
    const pendingRead = device().pendingRead;
    assert.ok(pendingRead, 'a read is pending');
    pendingRead(new Error('EIO: i/o error, read')); // what the kernel gives a pending read
    await down;
    assert.equal(radio.status().state, 'degraded');
    assert.match(radio.status().detail ?? '', /unplugged; retrying in 100 ms/);
    await clock.tick(100);
    assert.match(radio.status().detail ?? '', /cannot open .*retrying in 200 ms/);
    await clock.tick(200);
    assert.match(radio.status().detail ?? '', /retrying in 400 ms/);
    await clock.tick(400);
    assert.match(radio.status().detail ?? '', /retrying in 800 ms/);
    await clock.tick(800);
    assert.match(radio.status().detail ?? '', /retrying in 800 ms/, 'capped at reconnect.max_ms');
    binding.createPort(path, { record: true });
    const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
    await clock.tick(800);
    await up;
    assert.equal(radio.status().state, 'ready');
    await radio.send(radio.peerId, frameOf('after replug'));
  });

  it('opens without a device present (degraded), and picks it up when it is plugged in', async () => {
    const { radio, clock, path } = setup({}, false);
    await radio.open();
    assert.equal(radio.status().state, 'degraded');
    assert.deepEqual(radio.peers(), []);
    binding.createPort(path, { record: true });
    const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
    await clock.tick(100);
    await up;
    assert.equal(radio.status().state, 'ready');
  });

  it('finds its port by USB vendor and product id', async () => {
    const { radio, path } = setup({ path: undefined, match: { vendor_id: '2FE3', product_id: '0x0100' }, peer_id: 'nrf-dongle' });
    await radio.open();
    await peerConnected(radio, 'nrf-dongle');
    assert.equal(radio.path, path);
  });

  it('with keepalive, counts the device present only while it answers', async () => {
    const { radio, clock, send, written } = setup({ keepalive_ms: 1000 });
    await radio.open();
    assert.deepEqual(radio.peers(), [], 'an open port alone is not a present device');
    const up = nextEvent(radio, 'peer', (p) => p.change === 'up');
    await send(SerialFrameType.HELLO, encodeSerialHello({ wireVersions: [] }));
    await up;
    await clock.tick(1000);
    assert.ok(written().some((f) => f.type === SerialFrameType.PING), 'the radio pings');
    const down = nextEvent(radio, 'peer', (p) => p.change === 'down');
    await clock.tick(2000);
    await down;
    assert.equal(radio.status().state, 'ready', 'the port itself is fine');
    const back = nextEvent(radio, 'peer', (p) => p.change === 'up');
    await send(SerialFrameType.PONG, new Uint8Array(8));
    await back;
  });

  describe('io: the read/write route', () => {
    const routes: Array<ReturnType<typeof plainFileFdRoute>> = [];
    const fdRoute = (): ReturnType<typeof plainFileFdRoute> => {
      const r = plainFileFdRoute();
      routes.push(r);
      return r;
    };
    afterEach(() => {
      for (const r of routes.splice(0)) r.cleanup();
    });

    it('auto: takes serialport\'s stream when the fd route cannot serve the device, and says so', async () => {
      const route = fdRoute();
      const { radio, logger, written } = setup({}, true, route.createFdPort);
      await radio.open();
      await peerConnected(radio, radio.peerId);
      assert.equal(route.opened(), 1, 'the fd route was tried first');
      assert.equal(radio.route, 'serialport');
      assert.ok(logger.lines.some((l) => l.level === 'warn' && /fd route unavailable/.test(l.msg ?? '')));
      await radio.send(radio.peerId, frameOf('over the fallback'));
      assert.ok(written().some((f) => f.type === SerialFrameType.DATA));
    });

    it('fd: a device the route cannot serve leaves the radio degraded, never on serialport\'s stream', async () => {
      const route = fdRoute();
      const { radio, ports } = setup({ io: 'fd' }, true, route.createFdPort);
      await radio.open();
      assert.equal(radio.status().state, 'degraded');
      assert.match(radio.status().detail ?? '', /fd route cannot serve .*not a terminal/);
      assert.equal(ports.length, 0);
      assert.equal(radio.route, undefined);
    });

    it('fd: a backend without the route (Windows) leaves the radio degraded', async () => {
      const { radio, ports } = setup({ io: 'fd' });
      await radio.open();
      assert.equal(radio.status().state, 'degraded');
      assert.match(radio.status().detail ?? '', /io: fd is not available/);
      assert.equal(ports.length, 0);
    });

    it('serialport: never tries the fd route', async () => {
      const route = fdRoute();
      const { radio } = setup({ io: 'serialport' }, true, route.createFdPort);
      await radio.open();
      await peerConnected(radio, radio.peerId);
      assert.equal(route.opened(), 0);
      assert.equal(radio.route, 'serialport');
    });

    it('refuses an unknown route with the path of the setting', () => {
      assert.throws(
        () => createRadio({ id: 'usb9', kind: 'serial', path: '/dev/x', io: 'poll' } as unknown as RadioConfig, { logger: new TestLogger(), stateDir: '/tmp' }),
        (e: unknown) => e instanceof RadioError && e.code === 'BAD_CONFIG' && e.details?.path === 'radio.io',
      );
    });
  });

  it('refuses a bad configuration with the path of the setting', () => {
    assert.throws(
      // What a JavaScript caller may pass: the type (derived from the schema) already refuses it.
      () => createRadio({ id: 'usb9', kind: 'serial' } as unknown as RadioConfig, { logger: new TestLogger(), stateDir: '/tmp' }),
      (e: unknown) => e instanceof RadioError && e.code === 'BAD_CONFIG' && e.details?.path === 'radio.path',
    );
    assert.throws(
      () => createRadio({ id: 'usb9', kind: 'serial', path: '/dev/x', baud_rate: 0 }, { logger: new TestLogger(), stateDir: '/tmp' }),
      (e: unknown) => e instanceof RadioError && e.details?.path === 'radio.baud_rate',
    );
  });
});
