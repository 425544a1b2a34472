/**
 * `npm run bench:ble`: a 64 KiB frame from the gateway's BLE central (noble) to a bleno phone and back, at ATT MTU
 * 247, through both real host stacks over the virtual LE controller (devble/). The radio is built from the config a
 * user writes (`adapter: uart:<pty of its devble controller>`), so the figure includes the UART transport and the
 * HCI multiplexer. Prints the transfer times with the configured write gap (default 20 ms, the gateway's default)
 * and with none.
 *
 * The virtual air has no airtime unless BENCH_AIRTIME=1 (each PDU then waits its LE 1M PHY time), so the figure
 * without it is what the hosts' own code and pacing cost; it is not a radio measurement.
 * Variables: BENCH_GAP_MS, BENCH_BYTES, BENCH_AIRTIME.
 */
import { createRadio } from '../gateway/radios';
import type { BleRadio } from '../gateway/radios/ble/ble-radio';
import { pduTimeUs } from '../devble/link';
import { VirtualBle } from '../devble/virtual-ble';
import { bigFrame } from '../test/gateway/radios/support/frames';
import { peerConnected } from '../test/gateway/radios/support/radio-suite';
import { TestLogger } from '../test/gateway/radios/support/test-logger';
import { BlenoPhone } from '../demo/ble-phone';
import { blenoOnUart } from '../demo/ble-hosts';

async function run(gapMs: number, bytes: number, airtime: boolean): Promise<{ outMs: number; backMs: number; fragments: number }> {
  const ble = new VirtualBle();
  if (airtime) ble.air.pduDelayMs = (octets) => pduTimeUs(octets) / 1000;
  const [g, p] = await Promise.all([ble.host(), ble.host()]);
  const phone = new BlenoPhone(blenoOnUart(p.path), { maxAttMtu: 247 });
  await phone.start();
  const radio = createRadio(
    { id: 'ble0', kind: 'ble', adapter: `uart:${g.path}`, flow_control: false, min_write_gap_ms: gapMs, discovery_window_ms: 0, peripheral: { enabled: false } },
    { logger: new TestLogger(), stateDir: '/tmp/ble-bench-state' },
  ) as BleRadio;
  const subscribed = new Promise<void>((resolve) => phone.once('subscribed', () => resolve()));
  await radio.open();
  const peerId = p.controller.address.replace(/:/g, '');
  await peerConnected(radio, peerId);
  await subscribed;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const frame = bigFrame(bytes);
  let t = performance.now();
  const arrived = new Promise((resolve) => phone.once('frame', resolve));
  await radio.send(peerId, frame);
  await arrived;
  const outMs = performance.now() - t;
  t = performance.now();
  const back = new Promise((resolve) => radio.once('frame', resolve));
  const fragments = phone.send(frame);
  await back;
  const backMs = performance.now() - t;
  await radio.close();
  phone.stop();
  await ble.close();
  return { outMs, backMs, fragments };
}

async function main(): Promise<void> {
  const bytes = Number(process.env.BENCH_BYTES ?? 65_536);
  const gap = Number(process.env.BENCH_GAP_MS ?? 20);
  const airtime = process.env.BENCH_AIRTIME === '1';
  console.log(`BLE through noble and bleno over the virtual controller (gateway: adapter uart:<pty>, the HCI multiplexer): ${bytes} B frame at ATT MTU 247${airtime ? ', with LE 1M airtime' : ', no airtime'}`);
  for (const g of [gap, 0]) {
    const r = await run(g, bytes, airtime);
    console.log(
      `  min_write_gap_ms ${String(g).padStart(3)}: gateway → phone ${r.outMs.toFixed(0).padStart(6)} ms (writes)   phone → gateway ${r.backMs.toFixed(0).padStart(6)} ms (${r.fragments} notifications, unpaced)`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
