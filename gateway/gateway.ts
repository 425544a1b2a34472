/**
 * The `Gateway` controller (as Zigbee2MQTT's `Controller`): it builds the bus, the identity, the store, the radios,
 * the router, the MQTT connection and every enabled extension, and owns their order of start and stop. The
 * constructor only stores its arguments; `start()` does the work and `stop()` undoes it:
 *
 *   stop: refuse new frames → drain the MQTT outbox (up to `gateway.shutdown_timeout_ms`) → stop the extensions
 *   in reverse → publish the retained `offline` state and disconnect → close the radios → close the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { backgroundClock, type Clock, type TimerHandle } from '../lib/clock';
import type { Store } from '../lib/store';
import { EventBus } from './bus';
import type { GatewayConfig } from './gateway-config';
import { GatewayError } from './errors';
import { QueueRegistry, SiteBoard, type Extension, type ExtensionContext, type GatewayInfo, type GatewaySnapshot } from './extension';
import { HealthMonitor } from './health';
import { EXTENSIONS, factoryOf, loadExtensionModule } from './extensions/index';
import { loadOrCreateIdentity, type GatewayIdentity } from './identity';
import { adopt, child, setLogLevel, silentLogger, type LogLevel } from './logger';
import { Metrics } from './metrics';
import { MqttConnection, redactUrl } from './mqtt/connection';
import { Topics } from './mqtt/topics';
import { createRadio, PeerAdmission } from './radios/index';
import { admitsListedOnly } from './radios/radio-config';
import type { Radio } from './radios/radio';
import { MeshRouter } from './router';
import { openGatewayStore } from './store-choice';
import { StoredControlRatchet } from './control-ratchet';
import type { MqttBridge } from './extensions/mqtt-bridge/mqtt-bridge';

export { STORE_FILE } from './store-choice';

export interface GatewayOptions {
  logger?: Logger;
  /** Radios built by the caller (tests, the demo); default: one per `radios` entry of the config. */
  radios?: Radio[];
  clock?: Clock;
  random?: () => number;
  /** Called when a restart is asked for (Home Assistant's button, `B/bridge/request/restart`); `runGateway` restarts in process. */
  onRestartRequest?: (reason: string) => void;
  /** What loading the configuration warned about, shown where `--check` problems are (the web UI's gateway page). */
  configWarnings?: string[];
}


function packageVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      return (JSON.parse(fs.readFileSync(path.join(__dirname, rel), 'utf8')) as { version: string }).version;
    } catch {
      // Try the next layout (compiled tree vs. sources).
    }
  }
  return '0.0.0';
}

/** Messages/s over the last 10 s, sampled once a second. */
class RateMeter {
  private readonly samples: Array<{ t: number; n: number }> = [];

  sample(t: number, n: number): void {
    this.samples.push({ t, n });
    if (this.samples.length > 11) this.samples.shift();
  }

  rate(): number {
    if (this.samples.length < 2) return 0;
    const a = this.samples[0]!;
    const b = this.samples[this.samples.length - 1]!;
    const dt = (b.t - a.t) / 1000;
    return dt > 0 ? Math.round(((b.n - a.n) / dt) * 10) / 10 : 0;
  }
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Gateway {
  readonly metrics = new Metrics();
  private state: State = 'new';
  private logger: Logger;
  private readonly clock: Clock;
  private busValue: EventBus | undefined;
  private health: HealthMonitor | undefined;
  private identityValue: GatewayIdentity | undefined;
  private store: Store | undefined;
  private radioList: Radio[] = [];
  private admission: PeerAdmission | undefined;
  private routerValue: MeshRouter | undefined;
  private connection: MqttConnection | undefined;
  private topics: Topics | undefined;
  private readonly extensions: Extension[] = [];
  private readonly queues = new QueueRegistry();
  private readonly site = new SiteBoard();
  private infoValue: GatewayInfo | undefined;
  private readonly rate = new RateMeter();
  private rateTimer: TimerHandle | undefined;

  constructor(
    readonly config: GatewayConfig,
    private readonly options: GatewayOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger();
    this.clock = options.clock ?? backgroundClock;
  }

  get bus(): EventBus {
    if (!this.busValue) throw new GatewayError('NOT_STARTED', 'the gateway has not been started');
    return this.busValue;
  }

  get router(): MeshRouter {
    if (!this.routerValue) throw new GatewayError('NOT_STARTED', 'the gateway has not been started');
    return this.routerValue;
  }

  get info(): GatewayInfo {
    if (!this.infoValue) throw new GatewayError('NOT_STARTED', 'the gateway has not been started');
    return this.infoValue;
  }

  /** The MQTT connection is up (false with MQTT disabled). */
  get mqttConnected(): boolean {
    return this.connection?.connected ?? false;
  }

  get radios(): readonly Radio[] {
    return this.radioList;
  }

  get mqtt(): MqttConnection | undefined {
    return this.connection;
  }

  get mqttTopics(): Topics | undefined {
    return this.topics;
  }

  extension<T extends Extension>(name: string): T | undefined {
    return this.extensions.find((e) => e.name === name) as T | undefined;
  }

  /** Whether a BLE pairing window is open now. */
  get pairingOpen(): boolean {
    return this.admission?.isOpen === true;
  }

  /** The status page URL once started with `http.enabled`. */
  get statusUrl(): string | undefined {
    return this.extension<Extension & { url?: string }>('status-http')?.url;
  }

  private starting: Promise<void> | undefined;

  async start(): Promise<void> {
    if (this.state !== 'new') throw new GatewayError('ALREADY_STARTED', `start() called on a gateway that is ${this.state}`);
    this.state = 'starting';
    this.starting = this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const config = this.config;
    try {
      this.identityValue = loadOrCreateIdentity(config.gateway.state_dir);
      const identity = this.identityValue;
      const id = config.gateway.id ?? identity.address;
      this.infoValue = { id, name: config.gateway.name, address: identity.address, version: packageVersion(), startedAt: this.clock.now() };
      this.logger = adopt(this.logger, this.logger.child({ gateway: id }));
      if (identity.created) this.logger.info({ address: identity.address, file: identity.file }, 'created the gateway identity');
      this.store = openGatewayStore(config, this.logger);
      const bus = new EventBus(child(this.logger, 'bus'));
      this.busValue = bus;
      this.health = new HealthMonitor(this.clock, {
        mqttEnabled: config.mqtt.enabled,
        mqttDownMs: config.http.health_mqtt_down_ms,
        radioGraceMs: config.http.health_radio_grace_ms,
      });
      this.health.attach(bus);
      this.metrics.gauge('clawling_gateway_bus_listener_errors_total', 'Bus listeners that threw (extension bugs).', () => bus.errors);
      this.metrics.gauge('clawling_gateway_uptime_seconds', 'Seconds since start.', () => Math.round((this.clock.now() - this.info.startedAt) / 1000));
      this.metrics.gauge('clawling_gateway_resident_memory_bytes', 'Resident set size of the process.', () => process.memoryUsage.rss());
      this.metrics.gauge('clawling_gateway_queue_depth', 'Entries waiting in each durable queue.', () =>
        Object.entries(this.queues.read()).map(([queue, q]) => ({ labels: { queue }, value: q.depth })),
      );
      this.metrics.gauge('clawling_gateway_radio_up', '1 per radio that is ready or degraded, by radio and state.', () =>
        this.radioList.map((r) => {
          const s = r.status();
          return { labels: { radio: r.id, kind: r.kind, state: s.state }, value: s.state === 'ready' || s.state === 'degraded' ? 1 : 0 };
        }),
      );

      const admission = new PeerAdmission({ stateDir: config.gateway.state_dir, clock: this.clock, logger: child(this.logger, 'pairing'), windowMs: config.gateway.pairing_window_s * 1000 });
      this.admission = admission;
      this.radioList =
        this.options.radios ??
        config.radios.map((rc, i) =>
          createRadio(rc, { logger: child(this.logger, `radio:${rc.id}`), stateDir: config.gateway.state_dir, localAddress: identity.address, identity, admission }, `radios[${i}]`),
        );
      this.routerValue = new MeshRouter({
        address: identity.address,
        appId: config.gateway.app_id,
        radios: this.radioList,
        bus,
        logger: child(this.logger, 'router'),
        metrics: this.metrics,
        clock: this.clock,
        mesh: config.mesh,
        ...(this.options.random ? { random: this.options.random } : {}),
        controlRatchet: new StoredControlRatchet(this.store.kv),
      });

      if (config.mqtt.enabled) {
        this.topics = new Topics(config.mqtt.base_topic ?? `clawling/${id}`);
        this.connection = new MqttConnection({
          config: config.mqtt,
          clientId: config.mqtt.client_id ?? `clawling-${id}`.slice(0, 64),
          will: { topic: this.topics.bridgeState, payload: 'offline' },
          logger: child(this.logger, 'mqtt'),
        });
        const conn = this.connection;
        conn.on('up', (e) => bus.emit('mqttState', { connected: true, protocolVersion: e.protocolVersion }));
        conn.on('down', (e) => bus.emit('mqttState', { connected: false, reason: e.reason }));
      }

      for (const entry of EXTENSIONS) {
        if (!entry.enabled(config)) continue;
        const mod = await loadExtensionModule(entry);
        if (!mod) {
          throw new GatewayError('EXTENSION_MISSING', `${entry.section ?? entry.name}.enabled is true but the ${entry.name} extension is not part of this build`);
        }
        this.extensions.push(await factoryOf(entry, mod)(this.contextFor(entry.name)));
      }

      this.routerValue.start();
      for (const ext of this.extensions) await ext.start();
      await Promise.all(
        this.radioList.map((r) =>
          r.open().catch((err: unknown) => this.logger.error({ err, radio: r.id }, 'radio failed to open; the gateway goes on with the others')),
        ),
      );
      this.connection?.start();
      this.sampleRate();
      this.state = 'running';
      bus.emit('started', { at: this.clock.now() });
      this.logger.info(
        {
          address: identity.address,
          radios: this.radioList.map((r) => `${r.id}:${r.status().state}`),
          mqtt: config.mqtt.enabled ? redactUrl(config.mqtt.url) : 'disabled',
          status: this.statusUrl,
        },
        'gateway started',
      );
    } catch (err) {
      this.logger.error({ err }, 'gateway failed to start');
      await this.teardown();
      this.state = 'stopped';
      throw err;
    }
  }

  /** Graceful stop; safe to call more than once and from a signal handler. */
  async stop(reason = 'stop'): Promise<void> {
    // A signal during start: let the start finish (or fail) first, then stop what it built.
    if (this.state === 'starting') await this.starting?.catch(() => undefined);
    if (this.state === 'stopped' || this.state === 'stopping') return;
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    this.logger.info({ reason }, 'gateway stopping');
    this.busValue?.emit('stopping', { reason });
    this.routerValue?.stop();
    const bridge = this.extension<MqttBridge>('mqtt-bridge');
    if (bridge?.queue && this.connection?.connected) {
      const drained = await bridge.queue.drain(this.config.gateway.shutdown_timeout_ms);
      if (!drained) this.logger.warn({ depth: bridge.queue.depth }, 'outbox not empty at shutdown; the rest is kept on disk for the next start');
    } else bridge?.queue?.close();
    await this.teardown();
    this.state = 'stopped';
    this.logger.info('gateway stopped');
  }

  snapshot(): GatewaySnapshot {
    const info = this.info;
    const mem = process.memoryUsage();
    const conn = this.connection;
    const site = this.site.read();
    const mqtt: GatewaySnapshot['mqtt'] = conn
      ? { enabled: true, connected: conn.connected, protocol_version: conn.protocolVersion, url: redactUrl(this.config.mqtt.url), ...(conn.refused !== undefined ? { refused: conn.refused } : {}) }
      : { enabled: false, connected: false };
    const radios = this.radioList.map((r) => {
      const s = r.status();
      return { id: r.id, kind: r.kind, state: s.state, peers: s.peers, ...(s.detail !== undefined ? { detail: s.detail } : {}) };
    });
    const health = this.health?.assess(radios, mqtt) ?? { status: 'starting' as const, causes: [] };
    return {
      gateway: info,
      uptime_s: Math.round((this.clock.now() - info.startedAt) / 1000),
      rss_bytes: mem.rss,
      heap_used_bytes: mem.heapUsed,
      // The router's list: the configured radios and those an extension added (the gateway-daemon's devices).
      radios: this.routerValue
        ? this.routerValue.radios().map((s) => ({ id: s.radioId, kind: s.kind, state: s.state, peers: s.peers, ...(s.detail !== undefined ? { detail: s.detail } : {}) }))
        : radios,
      neighbours: (this.routerValue?.neighbours() ?? []).map((n) => ({
        radio: n.radioId,
        id: n.peer.id,
        connected: n.peer.connected,
        wire_versions: n.peer.wireVersions,
        ...(n.keyPackage !== undefined ? { key_package: n.keyPackage } : {}),
        ...(n.peer.address !== undefined ? { address: n.peer.address } : {}),
        ...(n.peer.rssi !== undefined ? { rssi: n.peer.rssi } : {}),
        ...(n.peer.mtu !== undefined ? { mtu: n.peer.mtu } : {}),
        ...(n.peer.battery !== undefined ? { battery: n.peer.battery } : {}),
        ...(n.peer.load !== undefined ? { load: n.peer.load } : {}),
      })),
      mqtt,
      health: { status: health.status, causes: health.causes },
      queues: this.queues.read(),
      messages_per_s: this.rate.rate(),
      ...(site !== undefined ? { site } : {}),
      counters: this.metrics.snapshot(),
      ...(this.options.configWarnings?.length ? { config_warnings: [...this.options.configWarnings] } : {}),
    };
  }

  /** The messages-per-second sample, once a second on the gateway's clock. */
  private sampleRate(): void {
    this.rateTimer = this.clock.setTimeout(() => {
      this.rate.sample(this.clock.now(), this.metrics.counter('clawling_gateway_messages_received_total', '').total());
      this.sampleRate();
    }, 1000);
  }

  private contextFor(name: string): ExtensionContext {
    const ctx: ExtensionContext = {
      config: this.config,
      info: this.info,
      bus: this.bus,
      logger: child(this.logger, name),
      metrics: this.metrics,
      mesh: this.router,
      store: this.store!,
      queues: this.queues,
      site: this.site,
      clock: this.clock,
      snapshot: () => this.snapshot(),
      control: {
        logLevel: () => this.logger.level as LogLevel,
        setLogLevel: (level) => {
          this.logger.info({ level }, 'log level changed');
          setLogLevel(this.logger, level);
        },
        restartable: this.options.onRestartRequest !== undefined,
        requestRestart: (reason) => {
          this.logger.warn({ reason }, 'restart requested');
          this.options.onRestartRequest?.(reason);
        },
        // The window is offered only where a radio honours it.
        ...(this.admission !== undefined && this.config.radios.some(admitsListedOnly) ? { pairing: this.admission } : {}),
      },
    };
    if (this.connection && this.topics) ctx.mqtt = { connection: this.connection, topics: this.topics };
    return ctx;
  }

  private async teardown(): Promise<void> {
    this.clock.clearTimeout(this.rateTimer);
    this.rateTimer = undefined;
    this.routerValue?.stop();
    this.admission?.stop();
    for (const ext of [...this.extensions].reverse()) {
      try {
        await ext.stop();
      } catch (err) {
        this.logger.error({ err, extension: ext.name }, 'extension failed to stop');
      }
    }
    this.extensions.length = 0;
    if (this.connection && this.topics) await this.connection.stop({ topic: this.topics.bridgeState, payload: 'offline' });
    await Promise.all(this.radioList.map((r) => r.close().catch((err: unknown) => this.logger.error({ err, radio: r.id }, 'radio failed to close'))));
    try {
      this.store?.close();
    } catch (err) {
      this.logger.error({ err }, 'store failed to close');
    }
  }
}
