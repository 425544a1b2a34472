/**
 * Radio configuration: the shape a gateway config file gives each radio, and one checker that names the offending
 * setting. Defaults and bounds come from the settings table of radio-schema.ts, which also builds
 * `RADIO_CONFIG_SCHEMA` for the gateway's config validator; `resolveRadioConfig` applies them and is what
 * `createRadio` runs, so a radio built from code (tests, the demo) gets the same checks as one built from YAML.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { RadioError } from './radio';
import {
  ADAPTER_PATTERN,
  UART_ADAPTER_PATTERN,
  ADVERTISE_NAME_MAX_BYTES,
  type BLE_RADIO_SCHEMA,
  type SERIAL_RADIO_SCHEMA,
  type SIMULATED_RADIO_SCHEMA,
  type BoolSetting,
  type IntSetting,
  RADIO_ID_PATTERN,
  SETTINGS,
  UUID_PATTERN as UUID_PATTERN_TEXT,
} from './radio-schema';

export { RADIO_CONFIG_SCHEMA, SETTINGS as RADIO_SETTINGS } from './radio-schema';

export const MESH_SERVICE_UUID = '6E400001-B5A3-F393-E0A9-E50E24DCCA9E';

/** A radio's config as written (defaults not applied yet), derived from its kind's schema in radio-schema.ts. */
type AsWritten<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>;

export type BleRadioConfig = AsWritten<typeof BLE_RADIO_SCHEMA>;
export type BlePeripheralConfig = NonNullable<BleRadioConfig['peripheral']>;
export type SerialRadioConfig = AsWritten<typeof SERIAL_RADIO_SCHEMA>;
export type SimulatedRadioConfig = AsWritten<typeof SIMULATED_RADIO_SCHEMA>;
export type SimulatedPeerConfig = NonNullable<SimulatedRadioConfig['peers']>[number];
/** What every kind has. */
export type RadioConfigBase = Pick<BleRadioConfig, 'id' | 'queue_limit' | 'queue_byte_limit' | 'reconnect'>;

export type RadioConfig = BleRadioConfig | SerialRadioConfig | SimulatedRadioConfig;

interface ResolvedCommon {
  id: string;
  queueLimit: number;
  queueByteLimit: number;
  reconnect: { initialMs: number; maxMs: number };
}

/** Where a BLE role's controller is: an HCI adapter of the kernel, or a serial device the gateway owns. */
export type BleControllerRef =
  | { kind: 'hci'; index: number; channel: 'raw' | 'user'; label: string }
  | { kind: 'uart'; path: string; baudRate: number; flowControl: boolean; label: string };

export interface ResolvedBleConfig extends ResolvedCommon {
  kind: 'ble';
  /** The HCI adapter index; -1 for a UART controller (see `controller`). */
  adapter: number;
  controller: BleControllerRef;
  /** UART line settings (used when a role's controller is `uart:`). */
  baudRate: number;
  flowControl: boolean;
  serviceUuid: string;
  maxPeers: number;
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  minWriteGapMs: number;
  writeGateMs: number;
  requireIdentity: boolean;
  allowPeers: string[];
  /** `listed`: only `allowPeers` and peers a pairing window admitted; `any`: every peer advertising the service. */
  admission: 'any' | 'listed';
  scanRestartMs: number;
  discoveryWindowMs: number;
  peripheral: ResolvedBlePeripheral;
}

export interface ResolvedBlePeripheral {
  enabled: boolean;
  advertiseName?: string;
  adapter: number;
  controller: BleControllerRef;
  /** Both roles on one controller (peripheral adapter = central adapter). */
  sharedAdapter: boolean;
  maxClients: number;
  notify: boolean;
}

export interface SerialPortMatch {
  vendorId?: string;
  productId?: string;
  serialNumber?: string;
  manufacturer?: string;
}

export interface ResolvedSerialConfig extends ResolvedCommon {
  kind: 'serial';
  path?: string;
  match?: SerialPortMatch;
  baudRate: number;
  maxFrameBytes: number;
  peerId?: string;
  wireVersions: number[];
  keepaliveMs: number;
  /** The read/write route (serial/serial-backend.ts). */
  io: SerialIo;
}

export type SerialIo = 'auto' | 'fd' | 'serialport';

export interface ResolvedSimulatedPeer {
  id: string;
  address?: string;
  wireVersions: number[];
  mtu?: number;
  rssi?: number;
  battery?: number;
  load?: number;
  autoAck: boolean;
  talk?: { everyMs: number; recipient?: string; appId?: string; text?: string };
}

export interface ResolvedSimulatedConfig extends ResolvedCommon {
  kind: 'simulated';
  peers: ResolvedSimulatedPeer[];
  fragment: boolean;
  latencyMs: number;
}

export type ResolvedRadioConfig = ResolvedBleConfig | ResolvedSerialConfig | ResolvedSimulatedConfig;

/** The gateway's radio id rule (gateway/config/schema.ts RADIO_ID_PATTERN): it ends up in MQTT topics. */
const ID_PATTERN = new RegExp(RADIO_ID_PATTERN);
const UUID_PATTERN = new RegExp(UUID_PATTERN_TEXT);
const ADAPTER_RE = new RegExp(ADAPTER_PATTERN.replace('(hci)?', '(?:hci)?').replace('[0-9]{1,2}', '([0-9]{1,2})'));
const MATCH_KEYS: Record<string, keyof SerialPortMatch> = {
  vendor_id: 'vendorId',
  product_id: 'productId',
  serial_number: 'serialNumber',
  manufacturer: 'manufacturer',
};

/** Applies defaults and checks every setting; throws `RadioError` `BAD_CONFIG` with `details.path`. */
export function resolveRadioConfig(config: RadioConfig, path = 'radio'): ResolvedRadioConfig {
  const bad = (at: string, problem: string): never => {
    const where = at === '' ? path : `${path}.${at}`;
    throw new RadioError('BAD_CONFIG', `${where}: ${problem}`, { path: where, problem });
  };
  if (typeof config !== 'object' || config === null) bad('', 'must be an object');
  if (typeof config.id !== 'string' || !ID_PATTERN.test(config.id)) bad('id', `must match ${RADIO_ID_PATTERN}`);
  /** `spec` gives the bounds and default; `fallback`/`min` override them where another setting decides. */
  const int = (at: string, value: unknown, spec: IntSetting, fallback = spec.default ?? 0, min = spec.minimum): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > spec.maximum) {
      bad(at, `must be an integer from ${min} to ${spec.maximum}`);
    }
    return value as number;
  };
  const bool = (at: string, value: unknown, spec: BoolSetting): boolean => {
    if (value === undefined) return spec.default;
    if (typeof value !== 'boolean') bad(at, 'must be true or false');
    return value as boolean;
  };
  const versions = (at: string, value: unknown, fallback: number[]): number[] => {
    if (value === undefined) return fallback;
    const v = SETTINGS.wireVersion;
    if (!Array.isArray(value) || !value.every((x) => Number.isInteger(x) && x >= v.minimum && x <= v.maximum)) {
      bad(at, `must be a list of integers ${v.minimum}–${v.maximum}`);
    }
    return [...new Set(value as number[])].sort((a, b) => a - b);
  };
  const kind = config.kind === 'serial' || config.kind === 'simulated' ? config.kind : 'ble';
  const defaults = SETTINGS.reconnectDefaults[kind];
  const reconnect = config.reconnect ?? {};
  if (typeof reconnect !== 'object' || reconnect === null) bad('reconnect', 'must be an object');
  const initialMs = int('reconnect.initial_ms', reconnect.initial_ms, SETTINGS.reconnect.initial_ms, defaults.initial_ms);
  const common: ResolvedCommon = {
    id: config.id,
    queueLimit: int('queue_limit', config.queue_limit, SETTINGS.common.queue_limit),
    queueByteLimit: int('queue_byte_limit', config.queue_byte_limit, SETTINGS.common.queue_byte_limit),
    reconnect: {
      initialMs,
      maxMs: int('reconnect.max_ms', reconnect.max_ms, SETTINGS.reconnect.max_ms, Math.max(initialMs, defaults.max_ms), initialMs),
    },
  };

  switch (config.kind) {
    case 'ble': {
      const adapterOf = (at: string, value: unknown, fallback: number): number => {
        if (value === undefined) return fallback;
        if (typeof value === 'number') return int(at, value, { type: 'integer', ...SETTINGS.adapter });
        const m = typeof value === 'string' ? ADAPTER_RE.exec(value) : null;
        if (m === null) bad(at, 'must be hciN or a number');
        return int(at, Number((m as RegExpExecArray)[1]), { type: 'integer', ...SETTINGS.adapter });
      };
      const hciChannel = config.hci_channel ?? SETTINGS.hciChannel.default;
      if (hciChannel !== 'raw' && hciChannel !== 'user') bad('hci_channel', 'must be raw or user');
      const uartLine = {
        baudRate: int('baud_rate', config.baud_rate, SETTINGS.ble.baud_rate),
        flowControl: bool('flow_control', config.flow_control, SETTINGS.ble.flow_control),
      };
      const controllerOf = (at: string, value: unknown, fallback: BleControllerRef): BleControllerRef => {
        if (typeof value === 'string' && value.startsWith('uart:')) {
          const path = value.slice('uart:'.length);
          if (!new RegExp(UART_ADAPTER_PATTERN).test(value)) bad(at, 'must be uart:/dev/… (an absolute device path)');
          return { kind: 'uart', path, ...uartLine, label: `uart:${path}` };
        }
        if (value === undefined) return fallback;
        const index = adapterOf(at, value, 0);
        return { kind: 'hci', index, channel: hciChannel, label: `hci${index}` };
      };
      const controller = controllerOf('adapter', config.adapter, { kind: 'hci', index: 0, channel: hciChannel, label: 'hci0' });
      const adapter = controller.kind === 'hci' ? controller.index : -1;
      const serviceUuid = config.service_uuid ?? MESH_SERVICE_UUID;
      if (typeof serviceUuid !== 'string' || !UUID_PATTERN.test(serviceUuid)) bad('service_uuid', 'must be a 128-bit UUID');
      const allowPeers = config.allow_peers ?? [];
      if (!Array.isArray(allowPeers) || !allowPeers.every((p) => typeof p === 'string' && p.length > 0)) {
        bad('allow_peers', 'must be a list of peripheral ids or off1… addresses');
      }
      return {
        ...common,
        kind: 'ble',
        adapter,
        controller,
        ...uartLine,
        serviceUuid,
        maxPeers: int('max_peers', config.max_peers, SETTINGS.ble.max_peers),
        connectTimeoutMs: int('connect_timeout_ms', config.connect_timeout_ms, SETTINGS.ble.connect_timeout_ms),
        handshakeTimeoutMs: int('handshake_timeout_ms', config.handshake_timeout_ms, SETTINGS.ble.handshake_timeout_ms),
        minWriteGapMs: int('min_write_gap_ms', config.min_write_gap_ms, SETTINGS.ble.min_write_gap_ms),
        writeGateMs: int('write_gate_ms', config.write_gate_ms, SETTINGS.ble.write_gate_ms),
        requireIdentity: bool('require_identity', config.require_identity, SETTINGS.ble.require_identity),
        allowPeers: allowPeers.map((p) => normalisePeerRef(p)),
        admission: admissionOf(config.admission, allowPeers.length > 0, bad),
        scanRestartMs: int('scan_restart_ms', config.scan_restart_ms, SETTINGS.ble.scan_restart_ms),
        discoveryWindowMs: int('discovery_window_ms', config.discovery_window_ms, SETTINGS.ble.discovery_window_ms),
        peripheral: resolvePeripheral(config.peripheral, controller, { bad, int, bool, controllerOf }),
      };
    }
    case 'serial': {
      if (config.path === undefined && config.match === undefined) bad('path', 'give path or match');
      if (config.path !== undefined && (typeof config.path !== 'string' || config.path.length === 0)) {
        bad('path', 'must be a device path');
      }
      const resolved: ResolvedSerialConfig = {
        ...common,
        kind: 'serial',
        baudRate: int('baud_rate', config.baud_rate, SETTINGS.serial.baud_rate),
        maxFrameBytes: int('max_frame_bytes', config.max_frame_bytes, SETTINGS.serial.max_frame_bytes),
        wireVersions: versions('wire_versions', config.wire_versions, []),
        keepaliveMs: int('keepalive_ms', config.keepalive_ms, SETTINGS.serial.keepalive_ms),
        io: config.io ?? SETTINGS.serial.io.default,
      };
      if (!SETTINGS.serial.io.enum.includes(resolved.io)) bad('io', 'must be auto, fd or serialport');
      if (config.match !== undefined) {
        if (typeof config.match !== 'object' || config.match === null) bad('match', 'must be an object');
        const keys = Object.keys(config.match);
        if (keys.length === 0) bad('match', 'needs at least one of vendor_id, product_id, serial_number, manufacturer');
        const match: SerialPortMatch = {};
        for (const key of keys) {
          const target = MATCH_KEYS[key];
          if (target === undefined) bad(`match.${key}`, 'unknown key');
          const value = (config.match as Record<string, unknown>)[key];
          if (typeof value !== 'string' || value.length === 0) bad(`match.${key}`, 'must be a non-empty string');
          match[target] = value as string;
        }
        resolved.match = match;
      }
      if (config.path !== undefined) resolved.path = config.path;
      if (config.peer_id !== undefined) {
        if (typeof config.peer_id !== 'string' || config.peer_id.length === 0) bad('peer_id', 'must be a non-empty string');
        resolved.peerId = config.peer_id;
      }
      return resolved;
    }
    case 'simulated': {
      const peers = config.peers ?? [];
      if (!Array.isArray(peers)) bad('peers', 'must be a list');
      const seen = new Set<string>();
      const resolvedPeers = peers.map((peer, i): ResolvedSimulatedPeer => {
        const at = `peers[${i}]`;
        if (typeof peer !== 'object' || peer === null) bad(at, 'must be an object');
        if (typeof peer.id !== 'string' || peer.id.length === 0 || peer.id.length > 128) {
          bad(`${at}.id`, 'must be a string of 1 to 128 characters');
        }
        if (seen.has(peer.id)) bad(`${at}.id`, `duplicate peer id ${peer.id}`);
        seen.add(peer.id);
        const out: ResolvedSimulatedPeer = {
          id: peer.id,
          wireVersions: versions(`${at}.wire_versions`, peer.wire_versions, [1]),
          autoAck: bool(`${at}.auto_ack`, peer.auto_ack, SETTINGS.simulatedPeer.auto_ack),
        };
        if (peer.address !== undefined) {
          if (typeof peer.address !== 'string' || peer.address.length === 0) bad(`${at}.address`, 'must be a string');
          out.address = peer.address;
        }
        if (peer.mtu !== undefined) out.mtu = int(`${at}.mtu`, peer.mtu, SETTINGS.simulatedPeer.mtu);
        if (peer.rssi !== undefined) out.rssi = int(`${at}.rssi`, peer.rssi, SETTINGS.simulatedPeer.rssi);
        if (peer.battery !== undefined) out.battery = int(`${at}.battery`, peer.battery, SETTINGS.simulatedPeer.battery);
        if (peer.load !== undefined) out.load = int(`${at}.load`, peer.load, SETTINGS.simulatedPeer.load);
        if (peer.talk !== undefined) {
          const talk = peer.talk;
          if (typeof talk !== 'object' || talk === null) bad(`${at}.talk`, 'must be an object');
          if (talk.every_ms === undefined) bad(`${at}.talk.every_ms`, 'is required');
          const resolvedTalk: NonNullable<ResolvedSimulatedPeer['talk']> = {
            everyMs: int(`${at}.talk.every_ms`, talk.every_ms, SETTINGS.talk.every_ms),
          };
          for (const [key, target] of [['recipient', 'recipient'], ['app_id', 'appId'], ['text', 'text']] as const) {
            const value = talk[key];
            if (value === undefined) continue;
            if (typeof value !== 'string') bad(`${at}.talk.${key}`, 'must be a string');
            resolvedTalk[target] = value;
          }
          out.talk = resolvedTalk;
        }
        return out;
      });
      return {
        ...common,
        kind: 'simulated',
        peers: resolvedPeers,
        fragment: bool('fragment', config.fragment, SETTINGS.simulated.fragment),
        latencyMs: int('latency_ms', config.latency_ms, SETTINGS.simulated.latency_ms),
      };
    }
    default:
      return bad('kind', `must be ble, serial or simulated (got ${JSON.stringify((config as { kind?: unknown }).kind)})`);
  }
}

interface Checkers {
  bad: (at: string, problem: string) => never;
  int: (at: string, value: unknown, spec: IntSetting) => number;
  bool: (at: string, value: unknown, spec: BoolSetting) => boolean;
  controllerOf: (at: string, value: unknown, fallback: BleControllerRef) => BleControllerRef;
}


function resolvePeripheral(value: BlePeripheralConfig | undefined, central: BleControllerRef, c: Checkers): ResolvedBlePeripheral {
  const p = value ?? {};
  if (typeof p !== 'object' || p === null || Array.isArray(p)) c.bad('peripheral', 'must be an object');
  const controller = c.controllerOf('peripheral.adapter', p.adapter, central);
  const out: ResolvedBlePeripheral = {
    enabled: c.bool('peripheral.enabled', p.enabled, SETTINGS.peripheral.enabled),
    adapter: controller.kind === 'hci' ? controller.index : -1,
    controller,
    sharedAdapter: controller.label === central.label,
    maxClients: c.int('peripheral.max_clients', p.max_clients, SETTINGS.peripheral.max_clients),
    notify: c.bool('peripheral.notify', p.notify, SETTINGS.peripheral.notify),
  };
  if (p.advertise_name !== undefined) {
    const name = p.advertise_name;
    if (typeof name !== 'string' || name.length === 0 || Buffer.byteLength(name, 'utf8') > ADVERTISE_NAME_MAX_BYTES) {
      c.bad('peripheral.advertise_name', `must be a name of 1 to ${ADVERTISE_NAME_MAX_BYTES} UTF-8 bytes`);
    }
    out.advertiseName = name;
  }
  return out;
}


/** Peripheral ids compare without colons and in lowercase (noble's HCI id form); addresses are left as they are. */
export function normalisePeerRef(ref: string): string {
  return ref.startsWith('off1') ? ref : ref.replace(/:/g, '').toLowerCase();
}

/** A BLE radio that admits only listed and paired peers: a pairing window means something to it. */
export function admitsListedOnly(config: RadioConfig): boolean {
  return config.kind === 'ble' && (config.admission ?? ((config.allow_peers?.length ?? 0) > 0 ? 'listed' : 'any')) === 'listed';
}

/** A listed `allow_peers` keeps its old meaning (only those) unless `admission` says otherwise. */
function admissionOf(value: unknown, hasList: boolean, bad: (at: string, problem: string) => never): 'any' | 'listed' {
  if (value === undefined) return hasList ? 'listed' : 'any';
  if (value !== 'any' && value !== 'listed') bad('admission', 'must be any or listed');
  if (value === 'any' && hasList) bad('admission', 'any admits every peer, so allow_peers would be ignored: use listed, or remove allow_peers');
  return value as 'any' | 'listed';
}
