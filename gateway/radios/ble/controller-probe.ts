/**
 * What `clawling gateway --check` says about a controller the gateway owns (a UART, or an adapter on the HCI user
 * channel): it opens it, resets the controller, reads its version and address (the multiplexer's own start-up) and
 * closes it again, which on the user channel hands the adapter back to the kernel. The answer is a line naming the
 * manufacturer, the HCI version and the address, or the failure with its remedy.
 */
import { BleTransportError, type BleTransportErrorCode } from './errors';
import { HciController } from './hci-controller';
import type { ControllerInfo } from './hci-mux';
import type { HciSocketLike } from './hci-user-channel';

/** Bluetooth SIG company identifiers of the controllers integrators meet; others print as their number. */
const COMPANIES: Readonly<Record<number, string>> = Object.freeze({
  0x0002: 'Intel',
  0x000f: 'Broadcom',
  0x001d: 'Qualcomm',
  0x0059: 'Nordic Semiconductor',
  0x005d: 'Realtek',
  0x02e5: 'Espressif',
  0x05f1: 'The Linux Foundation',
});

/** HCI_Version codes (Assigned Numbers §2.1) to the Core Specification version. */
const CORE_VERSIONS = ['1.0b', '1.1', '1.2', '2.0', '2.1', '3.0', '4.0', '4.1', '4.2', '5.0', '5.1', '5.2', '5.3', '5.4', '6.0'];

export function describeController(info: ControllerInfo): string {
  const company = COMPANIES[info.manufacturer] ?? `company 0x${info.manufacturer.toString(16).padStart(4, '0')}`;
  const version = CORE_VERSIONS[info.hciVersion] ?? `code 0x${info.hciVersion.toString(16)}`;
  return `${company}, HCI ${version}, address ${info.address}`;
}

export interface ControllerProbe {
  ok: boolean;
  /** `uart:/dev/ttyACM0: Nordic Semiconductor, HCI 5.3, address …` or the problem. */
  detail: string;
  code?: BleTransportErrorCode;
  remedy?: string;
}

function userChannelRemedy(code: BleTransportErrorCode, index: number, at: string): string {
  switch (code) {
    case 'HELD_BY_BLUEZ':
      return `sudo btmgmt --index ${index} power off (or sudo hciconfig hci${index} down) before the gateway starts; BlueZ keeps its other adapters`;
    case 'PERMISSION':
      return 'AmbientCapabilities=CAP_NET_ADMIN in the unit, or sudo setcap cap_net_admin+eip $(readlink -f $(which node))';
    case 'IN_USE':
      return 'stop the other program on the adapter\'s user channel (another gateway?); one gateway per adapter';
    case 'NO_DEVICE':
      return `btmgmt info lists the adapters; plug the second one in or correct ${at}.adapter`;
    case 'UNSUPPORTED':
      return `use a UART controller (${at}.adapter: uart:<path>) or the raw channel (${at}.hci_channel: raw)`;
    default:
      return 'see docs/radios.md "Giving the gateway a controller"';
  }
}

function remedyFor(code: BleTransportErrorCode, at: string): string {
  switch (code) {
    case 'NO_DEVICE':
      return `plug the dongle in or correct ${at}.adapter (ls -l /dev/serial/by-id lists the connected ones)`;
    case 'PERMISSION':
      return 'sudo usermod -aG dialout $USER and log in again (under systemd: SupplementaryGroups=dialout in the unit)';
    case 'IN_USE':
      return 'stop the other program holding the port (fuser -v <path> names it); one gateway per controller';
    case 'NO_ANSWER':
    case 'GARBAGE':
      return `check ${at}.baud_rate (Zephyr hci_uart and ESP-IDF default to 1000000 or 115200, as built), ${at}.flow_control (RTS/CTS wired?) and that the firmware speaks HCI over UART`;
    default:
      return 'see docs/radios.md "Giving the gateway a controller"';
  }
}

/** Opens, identifies and closes the controller at `path`. Never throws. */
export async function probeUartController(ref: { path: string; baudRate: number; flowControl: boolean; label: string }, at: string): Promise<ControllerProbe> {
  return probe(new HciController({ path: ref.path, baudRate: ref.baudRate, flowControl: ref.flowControl }), ref.label, (code) => remedyFor(code, at));
}

/** Binds adapter `index` on the user channel, identifies it and lets it go. Never throws. */
export async function probeUserChannelController(ref: { index: number; label: string }, at: string, openSocket?: () => HciSocketLike): Promise<ControllerProbe> {
  const controller = new HciController(openSocket === undefined ? { index: ref.index } : { index: ref.index, openSocket });
  return probe(controller, ref.label, (code) => userChannelRemedy(code, ref.index, at));
}

async function probe(controller: HciController, label: string, remedy: (code: BleTransportErrorCode) => string): Promise<ControllerProbe> {
  const ref = { path: controller.path, label };
  try {
    const info = await controller.open();
    return { ok: true, detail: `${ref.label}: ${describeController(info)}` };
  } catch (err) {
    const code: BleTransportErrorCode = err instanceof BleTransportError ? err.code : 'NO_DEVICE';
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, code, detail: message.startsWith(`${label}:`) ? message : message.startsWith(ref.path) ? `uart:${message}` : `${label}: ${message}`, remedy: remedy(code) };
  } finally {
    await controller.close();
  }
}
