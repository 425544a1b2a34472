/**
 * Records the HCI traffic through the multiplexer while the gateway's noble and bleno share one devble controller:
 * start-up of both stacks, a phone central connecting to the GATT server and sending a frame, then the gateway's
 * central connecting to a phone peripheral and sending it a frame. Writes the fixture the multiplexer's unit tests
 * replay (hci-mux.test.ts). Run after a build: node dist/test/gateway/radios/ble/support/record-hci.js
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRadio } from '../../../../../gateway/radios';
import type { BleRadio } from '../../../../../gateway/radios/ble/ble-radio';
import { HciController } from '../../../../../gateway/radios/ble/hci-controller';
import type { HciRole, HciTraceStep } from '../../../../../gateway/radios/ble/hci-mux';
import { identityFromSeed } from '../../../../../gateway/radios/mesh-identity';
import { VirtualBle } from '../../../../../devble/virtual-ble';
import { BlenoPhone } from '../../../../../demo/ble-phone';
import { blenoOnUart, nobleOnUart } from '../../../../../demo/ble-hosts';
import { frameOf } from '../../support/frames';
import { nextEvent, peerConnected } from '../../support/radio-suite';
import { TestLogger } from '../../support/test-logger';
import { NoblePhoneCentral } from '../../support/noble-phone-central';

export interface RecordedStep {
  step: HciTraceStep;
  role?: HciRole;
  hex: string;
}

/** Relative to the repository root (the source tree, not dist/). */
export const FIXTURE = path.join('test', 'gateway', 'radios', 'ble', 'fixtures', 'two-roles.hci.json');

async function record(): Promise<void> {
  const steps: RecordedStep[] = [];
  const ble = new VirtualBle();
  const [gatewayHost, centralPhoneHost, peripheralPhoneHost] = await Promise.all([ble.host(), ble.host(), ble.host()]);
  const controller = new HciController(
    { path: gatewayHost.path, baudRate: 1_000_000, flowControl: false },
    { trace: (step, role, packet) => steps.push(role === undefined ? { step, hex: packet.toString('hex') } : { step, role, hex: packet.toString('hex') }) },
  );
  await controller.open();
  const radio = createRadio(
    { id: 'ble0', kind: 'ble', min_write_gap_ms: 0, discovery_window_ms: 0, peripheral: { enabled: true } },
    { logger: new TestLogger(), stateDir: '/tmp/radios-test-state', identity: identityFromSeed('mux-gateway'), noble: () => controller.noble(true), bleno: () => controller.bleno() },
  ) as BleRadio;
  await radio.open();
  const central = new NoblePhoneCentral(nobleOnUart(centralPhoneHost.path));
  const centralId = centralPhoneHost.controller.address.replace(/:/g, '');
  const up = nextEvent(radio, 'peer', (p) => p.id === centralId && p.change !== 'down');
  await central.connect(185);
  await up;
  const inbound = new Promise((resolve) => radio.once('frame', resolve));
  await central.send(frameOf('from the phone central'));
  await inbound;
  const phone = new BlenoPhone(blenoOnUart(peripheralPhoneHost.path), {});
  await phone.start();
  const phoneId = peripheralPhoneHost.controller.address.replace(/:/g, '');
  await peerConnected(radio, phoneId);
  const atPhone = new Promise((resolve) => phone.once('frame', resolve));
  await radio.send(phoneId, frameOf('to the phone peripheral'));
  await atPhone;
  const snapshot = steps.slice();
  central.stop();
  phone.stop();
  await radio.close();
  await controller.close();
  await ble.close();
  fs.writeFileSync(FIXTURE, `[\n${snapshot.map((s) => JSON.stringify(s)).join(',\n')}\n]\n`);
  process.stdout.write(`${snapshot.length} packets -> ${FIXTURE}\n`);
}

if (require.main === module) {
  record().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
}
