import { randomUUID } from 'node:crypto';
import { SerialPortMock } from 'serialport';
import { createRadio } from '../../../gateway/radios';
import type { SerialBackend } from '../../../gateway/radios/serial/serial-backend';
import type { SimulatedRadio } from '../../../gateway/radios/simulated/simulated-radio';
import { encodeSerialFrame, SerialDeframer, SerialFrameType } from '../../../lib/mesh/serial-framing';
import { FakeNobleBinding, nobleOver } from './support/fake-noble-binding';
import { ManualClock, settle } from './support/manual-clock';
import { radioConformanceSuite } from './support/radio-suite';
import { TestLogger } from './support/test-logger';

const STATE_DIR = '/tmp/radios-test-state';

radioConformanceSuite('simulated', async ({ queueLimit }) => {
  const clock = new ManualClock();
  const radio = createRadio(
    { id: 'sim0', kind: 'simulated', queue_limit: queueLimit, peers: [{ id: 'phone-1', wire_versions: [1], mtu: 247 }] },
    { logger: new TestLogger(), clock, stateDir: STATE_DIR },
  ) as SimulatedRadio;
  const vp = radio.virtualPeer('phone-1')!;
  return {
    radio,
    clock,
    expected: { address: vp.address, wireVersions: [1] },
    peer: {
      id: 'phone-1',
      sendToGateway: (frame) => vp.inject(frame),
      receivedFrames: () => vp.receipts().map((r) => r.frame),
      stall: () => vp.pause(),
      unstall: async () => vp.resume(),
      lose: async () => vp.vanish(),
      restore: async () => vp.appear(),
    },
    cleanup: () => radio.close(),
  };
});

/** The binding port (MockPortBinding) under a SerialPortMock stream. */
interface MockPortBinding {
  recording: Buffer;
  emitData(data: Buffer): void;
  write(buffer: Buffer): Promise<void>;
}

radioConformanceSuite('serial (binding-mock)', async ({ queueLimit }) => {
  const clock = new ManualClock();
  const path = `/dev/ttyMOCK-${randomUUID().slice(0, 8)}`;
  const binding = SerialPortMock.binding;
  binding.reset();
  binding.createPort(path, { record: true });
  const ports: SerialPortMock[] = [];
  const backend: SerialBackend = {
    createPort: ({ path: p, baudRate }) => {
      const port = new SerialPortMock({ path: p, baudRate, autoOpen: false });
      ports.push(port);
      return port;
    },
    list: () => SerialPortMock.list(),
  };
  const radio = createRadio(
    { id: 'ser0', kind: 'serial', path, queue_limit: queueLimit, reconnect: { initial_ms: 100, max_ms: 1000 } },
    { logger: new TestLogger(), clock, stateDir: STATE_DIR, serial: backend, random: () => 0 },
  );
  const current = (): MockPortBinding => (ports.at(-1) as unknown as { port: MockPortBinding }).port;
  let release: (() => void) | undefined;
  return {
    radio,
    clock,
    expected: { wireVersions: [] },
    peer: {
      id: `serial:${path}`,
      sendToGateway: async (frame) => {
        current().emitData(Buffer.from(encodeSerialFrame(SerialFrameType.DATA, frame)));
        await settle();
      },
      receivedFrames: () =>
        ports.flatMap((p) => {
          const b = (p as unknown as { port?: MockPortBinding }).port;
          if (b === undefined) return [];
          return new SerialDeframer().push(b.recording).flatMap((f) => (f.type === SerialFrameType.DATA ? [f.payload] : []));
        }),
      stall: () => {
        const b = current();
        const write = b.write.bind(b);
        const gate = new Promise<void>((resolve) => (release = resolve));
        b.write = async (buffer) => {
          await gate;
          return write(buffer);
        };
      },
      unstall: async () => {
        release?.();
        await settle();
      },
      lose: async () => {
        // The device disappears from the system and its port closes underneath the radio.
        binding.reset();
        await new Promise<void>((resolve) => ports.at(-1)!.close(() => resolve()));
        await settle();
      },
      restore: async () => {
        binding.createPort(path, { record: true });
        await clock.tick(200);
      },
    },
    cleanup: async () => {
      await radio.close();
      binding.reset();
    },
  };
});

radioConformanceSuite('ble (fake noble binding)', async ({ queueLimit }) => {
  const clock = new ManualClock();
  const fake = new FakeNobleBinding();
  fake.now = () => clock.now();
  const device = fake.add({ address: 'aa:bb:cc:00:00:01', maxMtu: 517 });
  const radio = createRadio(
    { id: 'ble0', kind: 'ble', queue_limit: queueLimit, min_write_gap_ms: 0, discovery_window_ms: 0, reconnect: { initial_ms: 100, max_ms: 1000 } },
    { logger: new TestLogger(), clock, stateDir: STATE_DIR, noble: () => nobleOver(fake), random: () => 0 },
  );
  return {
    radio,
    clock,
    expected: { address: device.identity.address, wireVersions: [] },
    peer: {
      id: device.id,
      sendToGateway: async (frame) => {
        fake.sendFrame(device.id, frame, randomUUID());
        await settle();
      },
      receivedFrames: () => device.frames,
      stall: () => fake.stallWrites(device.id),
      unstall: async () => {
        fake.releaseWrites(device.id);
        await settle();
      },
      lose: async () => {
        fake.drop(device.id);
        await settle();
      },
      restore: async () => {
        fake.restore(device.id);
        await clock.tick(200);
        fake.advertise(device.id);
        await settle();
      },
    },
    cleanup: () => radio.close(),
  };
});
