/**
 * What `clawling gateway --check` says about a UART controller: it opens the port, resets the controller, reads its
 * version and address (the multiplexer's own start-up) and closes it again. The answer is a line naming the
 * manufacturer, the HCI version and the address, or the failure with its remedy.
 */
import { BleTransportError, type BleTransportErrorCode } from './errors';
import { HciController } from './hci-controller';
import type { ControllerInfo } from './hci-mux';

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
  const controller = new HciController({ path: ref.path, baudRate: ref.baudRate, flowControl: ref.flowControl });
  try {
    const info = await controller.open();
    return { ok: true, detail: `${ref.label}: ${describeController(info)}` };
  } catch (err) {
    const code: BleTransportErrorCode = err instanceof BleTransportError ? err.code : 'NO_DEVICE';
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, code, detail: message.startsWith(ref.path) ? `uart:${message}` : `${ref.label}: ${message}`, remedy: remedyFor(code, at) };
  } finally {
    await controller.close();
  }
}
