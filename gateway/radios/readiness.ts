/**
 * Whether each configured radio can work on this host, and what to do when it cannot: the per-radio lines of
 * `clawling gateway --check`. It looks, it does not open: packages are loaded (their native part too, which is
 * where a Node.js upgrade or `--ignore-scripts` shows), sysfs and /dev are read, the process's capabilities are
 * read from /proc; no HCI socket, no serial port and no default noble/bleno instance is created. The one exception
 * is a BLE controller the gateway owns on a UART (`adapter: uart:…`): the issue's `--check` opens it, resets it
 * and reads its version and address, because only the controller's answer tells a wrong baud rate or non-HCI
 * firmware from a working dongle (ble/controller-probe.ts); it is closed again before the check returns.
 *
 * Every probe reads from an injectable root (`moduleRoot`, `sysDir`, `devDir`, `procDir`), so tests run these same
 * code paths against real folders: a package that fails to load, a device path that does not exist, a status file
 * without the capabilities.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describeNativeLoadFailure, installingFolder, projectFolder, remedyCommand } from './native-module';
import type { ResolvedRadioConfig, ResolvedSerialConfig, ResolvedBleConfig } from './radio-config';
import { listSerialPorts, portMatches } from './serial/serial-port-list';
import type { SerialBackend } from './serial/serial-backend';
import { probeUartController, probeUserChannelController } from './ble/controller-probe';

export type ReadinessCode =
  | 'PACKAGE_MISSING'
  | 'PACKAGE_UNLOADABLE'
  | 'ADAPTER_MISSING'
  | 'PERMISSION_MISSING'
  | 'DEVICE_ABSENT'
  | 'DEVICE_PERMISSION'
  | 'NO_MATCHING_PORT'
  /** A UART controller did not open or answer (the message says which; --check opens it). */
  | 'CONTROLLER_FAILED';

export interface ReadinessProblem {
  code: ReadinessCode;
  problem: string;
  remedy: string;
}

export interface RadioReadiness {
  id: string;
  kind: ResolvedRadioConfig['kind'];
  /** The radio's place in the configuration (`radios[1]`). */
  at: string;
  ready: boolean;
  problems: ReadinessProblem[];
  /** What each controller the radio owns reported (UART controllers: opened, identified and closed again). */
  controllers?: string[];
}

export interface ReadinessProbes {
  /** Packages resolve as from this folder (default: this module's own, i.e. the installed gateway). */
  moduleRoot?: string;
  sysDir?: string;
  devDir?: string;
  procDir?: string;
  platform?: NodeJS.Platform;
  /** The user named in the dialout remedy (default: the current one). */
  user?: string;
}

/** Linux capability bits raw HCI sockets need (include/uapi/linux/capability.h). */
const CAP_NET_ADMIN = 12n;
const CAP_NET_RAW = 13n;

export const SETCAP_LINE = 'sudo setcap cap_net_raw,cap_net_admin+eip $(readlink -f $(which node))';

interface Loaded {
  module?: unknown;
  problem?: ReadinessProblem;
}

class PackageProbe {
  private readonly req: NodeJS.Require;
  private readonly root: string;

  constructor(root: string | undefined) {
    this.root = root ?? projectFolder(__dirname);
    this.req = createRequire(root !== undefined ? path.join(root, 'package.json') : __filename);
  }

  /**
   * Requires `pkg` (or, with `native`, the package that carries its addon, resolved from `pkg`'s folder, through
   * `load`), turning a failure into the problem and its command.
   */
  load(pkg: string, native?: { pkg: string; load: (mod: unknown) => unknown }): Loaded {
    let file: string;
    try {
      file = this.req.resolve(`${pkg}/package.json`);
    } catch (err) {
      const failure = describeNativeLoadFailure(err, pkg);
      if (failure.kind !== 'not-installed') return this.unloadable(pkg, err, undefined);
      return {
        problem: {
          code: 'PACKAGE_MISSING',
          problem: `the optional package ${pkg} is not installed`,
          remedy: remedyCommand(failure, pkg, this.root),
        },
      };
    }
    try {
      if (native === undefined) return { module: this.req(pkg) as unknown };
      const from = createRequire(file);
      return { module: native.load(from(native.pkg)) };
    } catch (err) {
      return this.unloadable(native?.pkg ?? pkg, err, file);
    }
  }

  private unloadable(pkg: string, err: unknown, file: string | undefined): Loaded {
    const failure = describeNativeLoadFailure(err, pkg);
    const message = err instanceof Error ? err.message : String(err);
    const folder = installingFolder(message, failure.rebuildPackage) ?? (file !== undefined ? installingFolder(file, pkg) : undefined) ?? this.root;
    return {
      problem: {
        code: failure.kind === 'not-installed' ? 'PACKAGE_MISSING' : 'PACKAGE_UNLOADABLE',
        problem: `${pkg} is installed but ${failure.reason}`,
        remedy: remedyCommand(failure.kind === 'not-installed' ? { ...failure, kind: 'other' } : failure, pkg, folder),
      },
    };
  }
}

/** Effective capability mask of this process, or undefined where /proc does not say. */
function effectiveCapabilities(procDir: string): bigint | undefined {
  try {
    const m = /^CapEff:\s*([0-9a-fA-F]+)$/m.exec(fs.readFileSync(path.join(procDir, 'self', 'status'), 'utf8'));
    return m ? BigInt(`0x${m[1]}`) : undefined;
  } catch {
    return undefined;
  }
}

function hciSocketLoader(platform: NodeJS.Platform): (mod: unknown) => unknown {
  // `loadDriver('native')` loads the addon and defines the socket class; it opens nothing.
  return (mod) => (mod as { loadDriver(type: string): unknown }).loadDriver(platform === 'linux' ? 'native' : 'default');
}

function checkBle(config: ResolvedBleConfig, at: string, probes: Required<Omit<ReadinessProbes, 'moduleRoot'>>, packages: PackageProbe): ReadinessProblem[] {
  const problems: ReadinessProblem[] = [];
  const loader = { pkg: '@stoprocent/bluetooth-hci-socket', load: hciSocketLoader(probes.platform) };
  const noble = packages.load('@stoprocent/noble', loader);
  if (noble.problem) problems.push(noble.problem);
  if (config.peripheral.enabled) {
    const bleno = packages.load('@stoprocent/bleno', loader);
    // The two share the HCI socket package: one failure there is one problem.
    if (bleno.problem && !problems.some((p) => p.remedy === bleno.problem!.remedy)) problems.push(bleno.problem);
  }
  if (probes.platform !== 'linux') return problems;
  // UART controllers are opened by the caller; the kernel's adapters and raw-socket capabilities concern hciN only.
  const hciRoles = [config.controller, ...(config.peripheral.enabled ? [config.peripheral.controller] : [])].filter((c) => c.kind === 'hci');
  if (hciRoles.length === 0) return problems;
  const adapters = new Set(hciRoles.map((c) => (c.kind === 'hci' ? c.index : 0)));
  for (const n of adapters) {
    const dir = path.join(probes.sysDir, 'class', 'bluetooth', `hci${n}`);
    if (!fs.existsSync(dir)) {
      problems.push({
        code: 'ADAPTER_MISSING',
        problem: `no Bluetooth adapter hci${n} (${dir} does not exist)`,
        remedy: `ls ${path.join(probes.sysDir, 'class', 'bluetooth')} lists the adapters; plug in the dongle or enable the built-in one (rfkill list; no dtoverlay=disable-bt), or set ${at}.adapter`,
      });
    }
  }
  const caps = effectiveCapabilities(probes.procDir);
  // The user channel needs CAP_NET_ADMIN alone (to bind it); the raw channel needs both.
  if (hciRoles.every((c) => c.kind === 'hci' && c.channel === 'user')) {
    if (caps !== undefined && (caps & (1n << CAP_NET_ADMIN)) === 0n) {
      problems.push({
        code: 'PERMISSION_MISSING',
        problem: 'the HCI user channel needs CAP_NET_ADMIN, which this process does not have',
        remedy: 'under systemd, AmbientCapabilities=CAP_NET_ADMIN in the unit (or sudo setcap cap_net_admin+eip $(readlink -f $(which node)))',
      });
    }
    return problems;
  }
  const needed = (1n << CAP_NET_ADMIN) | (1n << CAP_NET_RAW);
  if (caps !== undefined && (caps & needed) !== needed) {
    problems.push({
      code: 'PERMISSION_MISSING',
      problem: 'raw HCI needs CAP_NET_RAW and CAP_NET_ADMIN, which this process does not have',
      remedy: `${SETCAP_LINE} (or, under systemd, AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN in the unit)`,
    });
  }
  return problems;
}

async function checkSerial(config: ResolvedSerialConfig, at: string, probes: Required<Omit<ReadinessProbes, 'moduleRoot'>>, packages: PackageProbe): Promise<ReadinessProblem[]> {
  const problems: ReadinessProblem[] = [];
  const loaded = packages.load('serialport');
  if (loaded.problem) problems.push(loaded.problem);
  const dialout = {
    code: 'DEVICE_PERMISSION' as const,
    remedy: `sudo usermod -aG dialout ${probes.user} and log in again (under systemd: SupplementaryGroups=dialout in the unit)`,
  };
  if (config.path !== undefined) {
    const device = config.path;
    if (!fs.existsSync(device)) {
      problems.push({
        code: 'DEVICE_ABSENT',
        problem: `${device} does not exist (the gateway starts anyway and opens it once it appears)`,
        remedy: `plug the device in, or correct ${at}.path (ls -l ${path.join(probes.devDir, 'serial', 'by-id')} lists the connected ones)`,
      });
      return problems;
    }
    try {
      fs.accessSync(device, fs.constants.R_OK | fs.constants.W_OK);
    } catch (err) {
      problems.push({ ...dialout, problem: `${device} is not readable and writable by this user (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    }
    return problems;
  }
  const match = config.match ?? {};
  const mod = loaded.module as { SerialPort?: { list(): Promise<unknown[]> } } | undefined;
  const backend = mod?.SerialPort ? ({ list: () => mod.SerialPort!.list(), createPort: () => undefined as never } as unknown as SerialBackend) : undefined;
  // listSerialPorts never rejects: without udevadm the platform list fails and /dev is scanned instead.
  const listing = await listSerialPorts({ ...(backend ? { backend } : {}), devDir: probes.devDir, sysDir: probes.sysDir });
  if (!listing.ports.some((p) => portMatches(p, match))) {
    const wanted = Object.entries(match)
      .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}=${String(v)}`)
      .join(', ');
    problems.push({
      code: 'DEVICE_ABSENT',
      problem: `no connected serial port matches ${wanted} (${listing.ports.length} port(s) listed; the gateway starts anyway and keeps looking)`,
      remedy: `plug the device in, or correct ${at}.match (ls -l ${path.join(probes.devDir, 'serial', 'by-id')}; udevadm info ${path.join(probes.devDir, 'ttyACM0')} shows the ids)`,
    });
  }
  return problems;
}

/** The readiness of one radio; never throws. */
export async function checkRadioReadiness(config: ResolvedRadioConfig, at: string, probes: ReadinessProbes = {}): Promise<RadioReadiness> {
  const p = {
    sysDir: probes.sysDir ?? '/sys',
    devDir: probes.devDir ?? '/dev',
    procDir: probes.procDir ?? '/proc',
    platform: probes.platform ?? process.platform,
    user: probes.user ?? safeUser(),
  };
  const packages = new PackageProbe(probes.moduleRoot);
  let problems: ReadinessProblem[] = [];
  const controllers: string[] = [];
  if (config.kind === 'ble') {
    problems = checkBle(config, at, p, packages);
    // Controllers the gateway owns are opened here (a UART, a user-channel adapter); raw-channel ones are the kernel's.
    const owned = new Map([config.controller, ...(config.peripheral.enabled ? [config.peripheral.controller] : [])].flatMap((c) => (c.kind === 'uart' || c.channel === 'user' ? [[c.label, c] as const] : [])));
    for (const ref of owned.values()) {
      const probe = ref.kind === 'uart' ? await probeUartController(ref, at) : await probeUserChannelController(ref, at);
      if (probe.ok) controllers.push(probe.detail);
      else problems.push({ code: 'CONTROLLER_FAILED', problem: probe.detail, remedy: probe.remedy ?? '' });
    }
  } else if (config.kind === 'serial') problems = await checkSerial(config, at, p, packages);
  const out: RadioReadiness = { id: config.id, kind: config.kind, at, ready: problems.length === 0, problems };
  if (controllers.length > 0) out.controllers = controllers;
  return out;
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '$USER';
  }
}

/** `radio usb0 (serial): not ready: … ; fix: …` — one line per radio. */
export function formatReadiness(r: RadioReadiness): string {
  const owned = r.controllers === undefined ? '' : ` (${r.controllers.join('; ')})`;
  if (r.ready) return `radio ${r.id} (${r.kind}): ready${owned}`;
  return `radio ${r.id} (${r.kind}): not ready: ${r.problems.map((p) => `${p.problem}; fix: ${p.remedy}`).join(' | ')}`;
}
