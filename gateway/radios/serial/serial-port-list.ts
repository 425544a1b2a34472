/**
 * Listing serial ports without depending on `udevadm`.
 *
 * On Linux `serialport` lists ports by running `udevadm info -e`; in a minimal container, a stripped-down image or
 * a systemd unit with a tight `PATH`, that binary is missing and `SerialPort.list()` rejects. A gateway must still
 * find its USB radio, so the fallback reads the same facts the kernel already publishes: device nodes under /dev
 * (`ttyUSB*`, `ttyACM*`, `ttyAMA*`, `serial/by-id/*`) and, for USB devices, `idVendor`/`idProduct`/`serial`/
 * `manufacturer` from sysfs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SerialPortMatch } from '../radio-config';
import type { SerialBackend, SerialPortInfo } from './serial-backend';

export interface SerialPortListing {
  ports: SerialPortInfo[];
  /** `platform`: the backend's own list; `scan`: the /dev + sysfs fallback. */
  source: 'platform' | 'scan';
  /** Why the platform list was not used. */
  warning?: string;
}

export interface ListSerialPortsOptions {
  backend?: SerialBackend;
  /** Roots for the fallback scan (tests point them at a fixture tree). */
  devDir?: string;
  sysDir?: string;
}

const DEVICE_PATTERN = /^tty(USB|ACM|AMA|S)\d+$/;

/** Never rejects: a failing platform list falls back to the scan, and an unreadable /dev gives an empty list. */
export async function listSerialPorts(options: ListSerialPortsOptions = {}): Promise<SerialPortListing> {
  let warning: string | undefined;
  if (options.backend !== undefined) {
    try {
      const ports = await options.backend.list();
      return { ports: ports.map((p) => ({ ...p })), source: 'platform' };
    } catch (err) {
      warning = `platform port list failed (${err instanceof Error ? err.message : String(err)}); scanned /dev instead`;
    }
  }
  const listing: SerialPortListing = { ports: scanDevices(options.devDir ?? '/dev', options.sysDir ?? '/sys'), source: 'scan' };
  if (warning !== undefined) listing.warning = warning;
  return listing;
}

function scanDevices(devDir: string, sysDir: string): SerialPortInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync(devDir);
  } catch {
    return [];
  }
  const ports: SerialPortInfo[] = [];
  for (const name of names.filter((n) => DEVICE_PATTERN.test(n)).sort()) {
    // ttyS* exist for every legacy UART slot; only list those sysfs backs with a real device.
    const sysTty = path.join(sysDir, 'class', 'tty', name, 'device');
    if (name.startsWith('ttyS') && !fs.existsSync(sysTty)) continue;
    const info: SerialPortInfo = { path: path.join(devDir, name), ...usbFacts(sysTty) };
    ports.push(info);
  }
  const byId = byIdLinks(devDir);
  for (const port of ports) {
    const link = byId.get(port.path);
    if (link !== undefined) port.pnpId = link;
  }
  return ports;
}

/** Walk up from the tty's device directory to the USB device that carries idVendor. */
function usbFacts(deviceLink: string): Omit<SerialPortInfo, 'path'> {
  let dir: string;
  try {
    dir = fs.realpathSync(deviceLink);
  } catch {
    return {};
  }
  for (let depth = 0; depth < 6; depth++) {
    const vendor = readTrimmed(path.join(dir, 'idVendor'));
    if (vendor !== undefined) {
      const facts: Omit<SerialPortInfo, 'path'> = { vendorId: vendor };
      const product = readTrimmed(path.join(dir, 'idProduct'));
      const serial = readTrimmed(path.join(dir, 'serial'));
      const manufacturer = readTrimmed(path.join(dir, 'manufacturer'));
      if (product !== undefined) facts.productId = product;
      if (serial !== undefined) facts.serialNumber = serial;
      if (manufacturer !== undefined) facts.manufacturer = manufacturer;
      return facts;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return {};
}

/** /dev/serial/by-id/<name> → the device it points at, so a listing shows the stable name too. */
function byIdLinks(devDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.join(devDir, 'serial', 'by-id');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const target = path.resolve(dir, fs.readlinkSync(path.join(dir, name)));
      out.set(target, name);
    } catch {
      // A dangling link (device just unplugged) is not a port.
    }
  }
  return out;
}

function readTrimmed(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text.length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a listed port satisfies every field of `match` (ids case-insensitively, without a `0x` prefix). */
export function portMatches(port: SerialPortInfo, match: SerialPortMatch): boolean {
  const norm = (v: string | undefined): string | undefined => v?.toLowerCase().replace(/^0x/, '');
  if (match.vendorId !== undefined && norm(port.vendorId) !== norm(match.vendorId)) return false;
  if (match.productId !== undefined && norm(port.productId) !== norm(match.productId)) return false;
  if (match.serialNumber !== undefined && port.serialNumber !== match.serialNumber) return false;
  if (match.manufacturer !== undefined && port.manufacturer !== match.manufacturer) return false;
  return true;
}
