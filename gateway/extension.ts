/**
 * What every gateway extension is (as in Zigbee2MQTT): a constructor that only stores its collaborators,
 * `start()` that subscribes and opens what it needs, `stop()` that releases it and detaches its bus listeners.
 * Extensions know the bus, the mesh API and the shared MQTT connection, never each other.
 *
 * Each extension is a folder under `gateway/extensions/` whose `index.ts` exports `createExtension(context)` and, when
 * it brings its own section of the configuration, `configSchema` and `checkConfig` (see `extensions/index.ts`).
 */
import type { Logger } from 'pino';
import type { KeyPackageCapabilities } from '../lib/mesh/key-package';
import type { Store } from '../lib/store';
import type { EventBus } from './bus';
import type { GatewayConfig } from './gateway-config';
import type { Metrics } from './metrics';
import type { MqttConnection } from './mqtt/connection';
import type { Topics } from './mqtt/topics';
import type { Clock } from '../lib/clock';
import type { MeshApi } from './router';
import type { GatewayInfo } from './gateway-info';
import type { HealthCause, HealthStatus } from './health';
import type { LogLevel } from './logger';
import type { PeerAdmission } from './radios/peer-admission';

export type { GatewayInfo } from './gateway-info';

export interface QueueDepth {
  depth: number;
  dropped: number;
  inflight?: number;
}

/** Where extensions show the depth of their queues (status page, `/metrics`, MQTT health). */
export class QueueRegistry {
  private readonly sources = new Map<string, () => QueueDepth>();

  register(name: string, read: () => QueueDepth): void {
    this.sources.set(name, read);
  }

  unregister(name: string): void {
    this.sources.delete(name);
  }

  read(): Record<string, QueueDepth> {
    const out: Record<string, QueueDepth> = {};
    for (const [name, read] of this.sources) out[name] = read();
    return out;
  }
}

/** A gateway of the site as this one sees it on the broker (status page, `/status.json`). */
export interface SiteGateway {
  id: string;
  name?: string;
  address?: string;
  base_topic?: string;
  /** From its retained bridge state: `online`, `offline`, or `unknown` before that arrived. */
  state: 'online' | 'offline' | 'unknown';
  self: boolean;
  /** Set when this entry collides with this gateway: the same mesh address under another id (a copied state folder). */
  conflict?: string;
}

export interface SiteSnapshot {
  id: string;
  topic: string;
  send_topic: string;
  /** This gateway is subscribed to the site downlink on the current connection. */
  takes_sends: boolean;
  gateways: SiteGateway[];
}

/** Where the site extension shows what it sees (one reader; none when the gateway has no site). */
export class SiteBoard {
  private reader: (() => SiteSnapshot) | undefined;

  register(read: () => SiteSnapshot): void {
    this.reader = read;
  }

  unregister(): void {
    this.reader = undefined;
  }

  read(): SiteSnapshot | undefined {
    return this.reader?.();
  }
}

export interface ExtensionContext {
  config: GatewayConfig;
  info: GatewayInfo;
  bus: EventBus;
  /** Namespaced with the extension's name. */
  logger: Logger;
  metrics: Metrics;
  mesh: MeshApi;
  store: Store;
  queues: QueueRegistry;
  site: SiteBoard;
  clock: Clock;
  /** Present when `mqtt.enabled`. */
  mqtt?: { connection: MqttConnection; topics: Topics };
  /** A snapshot of the whole gateway (status page, health topic). */
  snapshot(): GatewaySnapshot;
  /** What an operator may change while it runs (Home Assistant's controls, `B/bridge/request/*`). */
  control: GatewayControl;
}

export interface GatewayControl {
  logLevel(): LogLevel;
  setLogLevel(level: LogLevel): void;
  /** A restart can be carried out: the process that runs the gateway restarts it in place. */
  readonly restartable: boolean;
  requestRestart(reason: string): void;
  /** The BLE pairing window; absent when no radio has `admission: listed`. */
  readonly pairing?: PeerAdmission;
}

export interface GatewaySnapshot {
  gateway: GatewayInfo;
  uptime_s: number;
  rss_bytes: number;
  heap_used_bytes: number;
  radios: Array<{ id: string; kind?: string; state: string; detail?: string; peers: number }>;
  /** What loading the configuration warned about (environment variables that name no setting), as `--check` prints it. */
  config_warnings?: string[];
  /** `key_package`: the capability lists of the peer's last gated key package (docs/mesh.md), absent before one. */
  neighbours: Array<{
    radio: string;
    id: string;
    address?: string;
    connected: boolean;
    wire_versions: number[];
    key_package?: KeyPackageCapabilities;
    rssi?: number;
    mtu?: number;
    /** From the peer's signed advertisement (BLE IDENTITY), when it reports them. */
    battery?: number;
    load?: number;
  }>;
  mqtt: { enabled: boolean; connected: boolean; protocol_version?: 4 | 5; url?: string; refused?: string };
  /** What `/health` answers (gateway/health.ts), the same everywhere it is shown. */
  health: { status: HealthStatus; causes: HealthCause[] };
  queues: Record<string, QueueDepth>;
  messages_per_s: number;
  /** Present when `mqtt.site.id` is set and the site extension runs. */
  site?: SiteSnapshot;
  counters: Record<string, number | Record<string, number>>;
}

export abstract class Extension {
  abstract readonly name: string;

  constructor(protected readonly ctx: ExtensionContext) {}

  async start(): Promise<void> {
    // Most extensions only subscribe; the default does nothing.
  }

  async stop(): Promise<void> {
    this.ctx.bus.offAll(this);
  }
}

/** An extension folder's `index.ts` loads the implementation only when the gateway creates the extension. */
export type ExtensionFactory = (context: ExtensionContext) => Extension | Promise<Extension>;
