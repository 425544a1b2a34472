/**
 * `npm start -- --virtual-ble`: the demo's mesh on the virtual BLE controller (devble/). One virtual air holds four
 * controllers, each behind a pty a host opens as its HCI UART:
 *
 *   gateway central (noble, adapter 0) ─┐
 *   gateway GATT server (bleno, adapter 1) ─┼─ virtual air ─┬─ kitchen phone (bleno)
 *                                           │               └─ garden phone (bleno)
 *
 * The phones advertise the mesh service and serve the reference GATT layout; the gateway's BLE radio finds them,
 * checks their IDENTITY, subscribes and carries the demo's traffic through noble's and bleno's own HCI, L2CAP, ATT
 * and GATT code. The radio is built here (the gateway takes it ready-made) because its stacks open ptys, not
 * adapters. `close()` stops the phones and ends every pty relay: no child process is left.
 */
import { VirtualBle, type VirtualHost } from '../devble';
import type { Logger } from '../gateway/logger';
import { createRadio, type MeshIdentity, type Radio, type RadioConfig } from '../gateway/radios';
import { blenoOnUart, nobleOnUart } from './ble-hosts';
import { BlenoPhone } from './ble-phone';
import { BlePhonePeer } from './ble-phone-peer';
import { DemoError } from './errors';
import { PHONES } from './settings';

/** How long the gateway may take to connect to both phones and subscribe to them before the demo gives up. */
const CONNECT_TIMEOUT_MS = 30_000;

export interface VirtualBleSite {
  /** The gateway's BLE radio, for `new Gateway(config, { radios: [radio] })`. */
  radio: Radio;
  peers: BlePhonePeer[];
  /** The pty each host opens, by role. */
  ptys: Record<'central' | 'server' | 'kitchen' | 'garden', string>;
  /** Resolves once the gateway has subscribed to every phone; rejects after `CONNECT_TIMEOUT_MS`. */
  connected(): Promise<void>;
  close(): Promise<void>;
}

export interface VirtualBleSiteOptions {
  /** The radio's entry of the loaded gateway configuration. */
  radioConfig: RadioConfig;
  /** The gateway's identity (its GATT server serves it) and own address (the phones' recipient). */
  identity: MeshIdentity;
  stateDir: string;
  logger: Logger;
  /** The python3 the pty relays run (devble/pty.ts). */
  python?: string;
}

export async function startVirtualBleSite(o: VirtualBleSiteOptions): Promise<VirtualBleSite> {
  const ble = new VirtualBle(o.python === undefined ? {} : { python: o.python });
  const phones: BlenoPhone[] = [];
  const close = async (): Promise<void> => {
    for (const phone of phones.splice(0)) phone.stop();
    await ble.close();
  };
  try {
    const [central, server, kitchen, garden] = await Promise.all([ble.host(), ble.host(), ble.host(), ble.host()]);
    // On hardware both roles would share one adapter, which never hears its own advertising; here they are two
    // controllers, kept out of each other's range for the same effect.
    ble.air.apart(central.controller.address, server.controller.address);
    const phoneOn = (host: VirtualHost, which: keyof typeof PHONES): BlePhonePeer => {
      ble.air.setRssi(central.controller.address, host.controller.address, PHONES[which].rssi);
      const phone = new BlenoPhone(blenoOnUart(host.path), { seed: PHONES[which].seed });
      phones.push(phone);
      return new BlePhonePeer(which, phone, o.identity.address);
    };
    const peers = [phoneOn(kitchen, 'kitchen'), phoneOn(garden, 'garden')];
    await Promise.all(peers.map((p) => p.phone.start()));
    const radio = createRadio(o.radioConfig, {
      logger: o.logger,
      stateDir: o.stateDir,
      identity: o.identity,
      noble: () => nobleOnUart(central.path),
      bleno: () => blenoOnUart(server.path),
    });
    return {
      radio,
      peers,
      ptys: { central: central.path, server: server.path, kitchen: kitchen.path, garden: garden.path },
      connected: () => allSubscribed(peers),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function allSubscribed(peers: readonly BlePhonePeer[]): Promise<void> {
  const each = peers.map((p) => (p.phone.subscribed ? Promise.resolve() : new Promise<void>((resolve) => p.phone.once('subscribed', () => resolve()))));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const waiting = peers.filter((p) => !p.phone.subscribed).map((p) => p.id);
      reject(new DemoError('VIRTUAL_BLE_TIMEOUT', `the gateway did not connect to the BLE phone(s) ${waiting.join(', ')} within ${CONNECT_TIMEOUT_MS / 1000} s (see gateway.log)`));
    }, CONNECT_TIMEOUT_MS);
  });
  return Promise.race([Promise.all(each).then(() => undefined), late]).finally(() => clearTimeout(timer));
}
