/**
 * `npm start -- --virtual-ble`: the demo's mesh on the virtual BLE controller (devble/). One virtual air holds three
 * controllers, each behind a pty a host opens as its HCI UART:
 *
 *   gateway (noble central + bleno GATT server, one controller) ─ virtual air ─┬─ kitchen phone (bleno)
 *                                                                               └─ garden phone (bleno)
 *
 * The gateway is given its controller the way a user gives it a UART dongle: its configuration names
 * `uart:<pty>` (settings.ts `bleRadio`), and the radio opens it and runs both stacks through its HCI multiplexer.
 * Nothing of the gateway's side is built here. The phones advertise the mesh service and serve the reference GATT
 * layout. `close()` stops the phones and ends every pty relay: no child process is left.
 */
import { VirtualBle, type VirtualHost } from '../devble';
import type { MeshIdentity } from '../gateway/radios';
import { blenoOnUart } from './ble-hosts';
import { BlenoPhone } from './ble-phone';
import { BlePhonePeer } from './ble-phone-peer';
import { DemoError } from './errors';
import { PHONES } from './settings';

/** How long the gateway may take to connect to both phones and subscribe to them before the demo gives up. */
const CONNECT_TIMEOUT_MS = 30_000;

export interface VirtualBleSite {
  peers: BlePhonePeer[];
  /** The pty each host opens, by role; `gateway` goes into the radio's `adapter` as `uart:<pty>`. */
  ptys: Record<'gateway' | 'kitchen' | 'garden', string>;
  /** Resolves once the gateway has subscribed to every phone; rejects after `CONNECT_TIMEOUT_MS`. */
  connected(): Promise<void>;
  close(): Promise<void>;
}

export interface VirtualBleSiteOptions {
  /** The gateway's identity: its own address is the phones' recipient. */
  identity: MeshIdentity;
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
    const [gateway, kitchen, garden] = await Promise.all([ble.host(), ble.host(), ble.host()]);
    const phoneOn = (host: VirtualHost, which: keyof typeof PHONES): BlePhonePeer => {
      ble.air.setRssi(gateway.controller.address, host.controller.address, PHONES[which].rssi);
      const phone = new BlenoPhone(blenoOnUart(host.path), { seed: PHONES[which].seed });
      phones.push(phone);
      return new BlePhonePeer(which, phone, o.identity.address);
    };
    const peers = [phoneOn(kitchen, 'kitchen'), phoneOn(garden, 'garden')];
    await Promise.all(peers.map((p) => p.phone.start()));
    return {
      peers,
      ptys: { gateway: gateway.path, kitchen: kitchen.path, garden: garden.path },
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
