/**
 * One MQTT connection for the whole gateway, owned by the controller and shared by the extensions (as Zigbee2MQTT
 * shares its `Mqtt`). It reconnects by itself with a jittered exponential backoff, restores its subscriptions and
 * tells the bus each time it goes up or down, so that extensions republish their retained state.
 *
 * Protocol: `version: auto` tries MQTT 5 and falls back to 3.1.1 for good when the broker refuses version 5
 * (aedes and brokers before Mosquitto 1.6 answer CONNACK "unacceptable protocol version"). Each connection attempt
 * uses a fresh mqtt.js client: what was in flight on a dead connection is republished by the outbox, from disk,
 * so there is one resend path for a broker restart and for a gateway restart.
 */
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { redactUrl } from '../../lib/redact';
import { TypedEmitter, type ListenersOf } from '../../lib/typed-emitter';
import { wellFormedJson } from '../../lib/text-cut';
import mqtt, { type IClientOptions, type IClientPublishOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { jitteredDelay } from '../../lib/backoff';
import { systemClock, type Clock, type TimerHandle } from '../../lib/clock';
import { GatewayError } from '../errors';
import type { CoreConfig } from '../config/types';
import { encodePublish } from './publish-packet';
import { PacketIds } from './packet-ids';
import { PubackTap } from './puback-tap';

export interface ConnectionEvents {
  up: { protocolVersion: 4 | 5; sessionPresent: boolean };
  down: { reason: string };
  message: { topic: string; payload: Buffer; properties?: Record<string, unknown> };
}

export interface PublishOptions {
  qos?: 0 | 1;
  retain?: boolean;
  /** MQTT 5 only (dropped on 3.1.1): user properties, content type, response topic, correlation data. */
  properties?: IClientPublishOptions['properties'];
}

/** PUBACK reason codes below 0x80 are successes (0, and 16 "no matching subscribers"). */
const FIRST_FAILURE = 0x80;

type Acked = (err?: Error) => void;

/** What the gateway's own publish path keeps per connection: the ids, and who waits for each PUBACK. */
interface OwnPublishes {
  ids: PacketIds;
  acks: Map<number, Acked>;
}

/** CONNACK codes meaning "I do not speak this protocol version" (3.1.1 return code 1, MQTT 5 reason 0x84). */
const UNSUPPORTED_VERSION = new Set([1, 0x84]);
/** CONNACK codes meaning bad credentials or no permission (3.1.1: 4, 5; MQTT 5: 0x86, 0x87, 0x8c). */
const NOT_AUTHORISED = new Set([4, 5, 0x86, 0x87, 0x8c]);

type Handler<K extends keyof ConnectionEvents> = ListenersOf<ConnectionEvents>[K];

export interface ConnectionOptions {
  config: CoreConfig['mqtt'];
  clientId: string;
  will: { topic: string; payload: string };
  logger: Logger;
  clock?: Clock;
  random?: () => number;
}

function noLog(): void {}

export class MqttConnection {
  private client: MqttClient | undefined;
  private own: OwnPublishes = { ids: new PacketIds(), acks: new Map() };
  private generation = 0;
  private version: 4 | 5;
  private readonly auto: boolean;
  private attempt = 0;
  private reconnectTimer: TimerHandle | undefined;
  private stopped = true;
  private isUp = false;
  private readonly subscriptions = new Map<string, 0 | 1>();
  private readonly protocolSubscriptions = new Map<string, { filter: (version: 4 | 5) => string | undefined; qos: 0 | 1 }>();
  // The project's one typed emitter: a listener that throws is logged and the others still run.
  private readonly events = new TypedEmitter<ListenersOf<ConnectionEvents>>((err, event) => this.options.logger.error({ err, event }, 'mqtt connection listener failed'));
  private readonly clock: Clock;
  private readonly random: () => number;
  private lastError: string | undefined;
  private refusal: string | undefined;
  private tlsFiles: { ca?: Buffer; cert?: Buffer; key?: Buffer } | undefined;
  /** Successful connections so far (a metric; the first is not a reconnect). */
  connects = 0;

  constructor(private readonly options: ConnectionOptions) {
    this.auto = options.config.version === 'auto';
    this.version = options.config.version === 4 ? 4 : 5;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  on<K extends keyof ConnectionEvents>(event: K, handler: Handler<K>): void {
    this.events.on(event, handler);
  }

  off<K extends keyof ConnectionEvents>(event: K, handler: Handler<K>): void {
    this.events.off(event, handler);
  }

  get connected(): boolean {
    return this.isUp;
  }

  /** The broker's refusal of the credentials since the last successful connection (not a transient fault). */
  get refused(): string | undefined {
    return this.refusal;
  }

  get protocolVersion(): 4 | 5 {
    return this.version;
  }

  get lastErrorText(): string | undefined {
    return this.lastError;
  }

  /** Starts connecting; never rejects for a broker that is away (it keeps trying). Rejects for unreadable TLS files. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.tlsFiles = this.readTls();
    this.connect();
  }

  /** Adds a subscription that is restored on every connection. */
  subscribe(filter: string, qos: 0 | 1 = 1): void {
    this.subscriptions.set(filter, qos);
    if (this.isUp && this.client) this.subscribeNow(this.client, filter, qos);
  }

  /**
   * A subscription whose filter depends on the protocol of each connection (a shared subscription exists in MQTT 5
   * only); `filter` returning undefined means none on that protocol. Restored on every connection, like `subscribe`.
   */
  subscribeByProtocol(key: string, filter: (version: 4 | 5) => string | undefined, qos: 0 | 1 = 1): void {
    this.protocolSubscriptions.set(key, { filter, qos });
    if (this.isUp && this.client) this.subscribeNow(this.client, filter(this.version), qos);
  }

  private subscribeNow(client: MqttClient, filter: string | undefined, qos: 0 | 1): void {
    if (filter === undefined) return;
    client.subscribe(filter, { qos }, (err) => err && this.options.logger.warn({ filter, err }, 'subscribe failed'));
  }

  /** Publishes now; `callback` gets the PUBACK (QoS 1) or the write (QoS 0). Fails at once when disconnected. */
  publish(topic: string, payload: string | Buffer, options: PublishOptions, callback: (err?: Error) => void): void {
    const client = this.client;
    if (!this.isUp || !client) {
      callback(new GatewayError('MQTT_DISCONNECTED', 'not connected to the broker'));
      return;
    }
    this.corkTurn(client);
    const qos = options.qos ?? 0;
    const retain = options.retain ?? false;
    // Text leaves well-formed: a lone surrogate in a mesh message must not break the state Home Assistant keeps.
    const body = typeof payload === 'string' ? wellFormedJson(payload) : payload;
    const properties = this.version === 5 ? options.properties : undefined;
    if (this.publishOwn(client, topic, body, qos, retain, properties, callback)) return;
    const generation = this.generation;
    const opts: IClientPublishOptions = { qos, retain };
    if (properties) opts.properties = properties;
    client.publish(topic, body, opts, (err) => {
      // A callback from a client we already replaced is news about a connection that no longer exists.
      if (generation !== this.generation) return callback(new GatewayError('MQTT_DISCONNECTED', 'the connection was replaced'));
      callback(err ?? undefined);
    });
  }

  /**
   * The gateway's own path for a publish: one buffer, one write (gateway/mqtt/publish-packet.ts), the PUBACK taken
   * from mqtt.js's stream of received packets. False when the packet is one for mqtt.js (a property not written
   * there, no packet id free).
   */
  private publishOwn(client: MqttClient, topic: string, payload: string | Buffer, qos: 0 | 1, retain: boolean, properties: PublishOptions['properties'], callback: Acked): boolean {
    const stream = client.stream as { writable?: boolean; write(b: Buffer): boolean } | undefined;
    if (!stream?.writable) return false;
    const { ids, acks } = this.own;
    const packetId = qos ? ids.allocate() : 0;
    if (packetId === null) return false;
    const packet = encodePublish({ topic, payload, qos, retain, packetId, properties: properties as Parameters<typeof encodePublish>[0]['properties'] }, this.version);
    if (!packet) {
      if (qos) ids.deallocate(packetId);
      return false;
    }
    if (qos) acks.set(packetId, callback);
    stream.write(packet);
    if (!qos) callback();
    return true;
  }

  /**
   * A PUBACK that reached mqtt.js (one the tap leaves to it: long MQTT 5 properties) may still be for one of the
   * gateway's own publishes; mqtt.js ignores ids it did not allocate.
   */
  private readonly onPacket = (packet: { cmd: string; messageId?: number; reasonCode?: number }): void => {
    if (packet.cmd === 'puback' && packet.messageId !== undefined) this.settleOwn(this.own, packet.messageId, packet.reasonCode ?? 0);
  };

  /** The PUBACK of one of the gateway's own publishes on the connection `own` belongs to; false if it is not one. */
  private settleOwn(own: OwnPublishes, packetId: number, code: number): boolean {
    const acked = own.acks.get(packetId);
    if (!acked) return false;
    own.acks.delete(packetId);
    own.ids.deallocate(packetId);
    try {
      acked(code >= FIRST_FAILURE ? new GatewayError('MQTT_PUBLISH_REFUSED', `the broker refused the publish (reason code ${code})`, { reasonCode: code }) : undefined);
    } catch (err) {
      // Thrown inside the socket's read path it would stop every later read: the PUBACKs behind it would never come.
      this.options.logger.error({ err }, 'a publish callback failed');
    }
    return true;
  }

  /**
   * mqtt.js reads the socket through a PubackTap (gateway/mqtt/puback-tap.ts): the stream builder is mqtt.js's own
   * (TCP, TLS or WebSocket, by the URL); only where the stream's bytes go changes.
   */
  private tapPubacks(client: MqttClient, own: OwnPublishes): void {
    const holder = client as unknown as { streamBuilder: (c: MqttClient) => { pipe: (dest: Writable) => Writable } };
    const build = holder.streamBuilder;
    const take = (packetId: number, code: number): boolean => own === this.own && this.settleOwn(own, packetId, code);
    holder.streamBuilder = (c) => {
      const stream = build(c);
      const pipe = stream.pipe.bind(stream);
      stream.pipe = (dest: Writable) => {
        pipe(new PubackTap(dest, take));
        return dest;
      };
      return stream;
    };
  }

  /** Everything still waiting for a PUBACK on a connection that is gone fails, as mqtt.js fails its own. */
  private failOwn(reason: string): void {
    const { acks } = this.own;
    if (acks.size === 0) return;
    const waiting = [...acks.values()];
    acks.clear();
    const err = new GatewayError('MQTT_DISCONNECTED', reason);
    for (const acked of waiting) acked(err);
  }

  /**
   * Every publish of one turn of the event loop leaves in one socket write: a mesh message makes several (the
   * outbox's, Home Assistant's event), and a read from a radio carries many messages; one write each was a twelfth
   * of the gateway's CPU in `writev` (docs/gateway.md, benchmark).
   */
  private corkTurn(client: MqttClient): void {
    if (this.turnCorked) return;
    const stream = client.stream as { cork?: () => void; uncork?: () => void } | undefined;
    if (!stream?.cork || !stream.uncork) return;
    this.turnCorked = true;
    stream.cork();
    process.nextTick(this.uncorkTurn, stream);
  }

  private turnCorked = false;
  private readonly uncorkTurn = (stream: { uncork?: () => void }): void => {
    this.turnCorked = false;
    stream.uncork!();
  };

  /**
   * Runs `fn` with the socket corked, so the publishes it makes leave in one write (one syscall for a whole window
   * of the outbox instead of one per packet).
   */
  corked(fn: () => void): void {
    const stream = this.client?.stream as { cork?: () => void; uncork?: () => void } | undefined;
    if (!stream?.cork || !stream.uncork) {
      fn();
      return;
    }
    stream.cork();
    try {
      fn();
    } finally {
      process.nextTick(() => stream.uncork!());
    }
  }

  publishAsync(topic: string, payload: string | Buffer, options: PublishOptions = {}): Promise<void> {
    return new Promise((resolve, reject) => this.publish(topic, payload, options, (err) => (err ? reject(err) : resolve())));
  }

  /**
   * Publishes `offline` as the retained state (what the will would say) and disconnects cleanly, so subscribers see
   * the gateway leave at once instead of after the keepalive.
   */
  async stop(finalState?: { topic: string; payload: string }): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    if (client && this.isUp && finalState) {
      await Promise.race([
        new Promise<void>((resolve) => client.publish(finalState.topic, finalState.payload, { qos: 1, retain: true }, () => resolve())),
        new Promise<void>((resolve) => this.clock.setTimeout(resolve, 2000)),
      ]);
    }
    this.generation += 1;
    this.client = undefined;
    const wasUp = this.isUp;
    this.isUp = false;
    this.failOwn('the connection was replaced');
    if (client) await new Promise<void>((resolve) => client.end(false, {}, () => resolve()));
    if (wasUp) this.emit('down', { reason: 'stopped' });
  }

  private readTls(): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
    const t = this.options.config.tls;
    const read = (file: string | null, what: string): Buffer | undefined => {
      if (file === null) return undefined;
      try {
        return fs.readFileSync(file);
      } catch (err) {
        throw new GatewayError('MQTT_TLS_FILE', `cannot read mqtt.tls.${what} (${file}): ${(err as NodeJS.ErrnoException).code}`, { setting: `mqtt.tls.${what}` });
      }
    };
    const out: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
    const ca = read(t.ca, 'ca');
    const cert = read(t.cert, 'cert');
    const key = read(t.key, 'key');
    if (ca) out.ca = ca;
    if (cert) out.cert = cert;
    if (key) out.key = key;
    return out;
  }

  private clientOptions(): IClientOptions {
    const c = this.options.config;
    const opts: IClientOptions = {
      clientId: this.options.clientId,
      protocolVersion: this.version,
      keepalive: c.keepalive_s,
      connectTimeout: c.connect_timeout_ms,
      reconnectPeriod: 0,
      clean: true,
      resubscribe: false,
      queueQoSZero: false,
      // mqtt-packet would otherwise build a table of 65 536 two-byte Buffers (about 7 MB of heap on 64-bit) on the
      // first packet, to save a 2-byte allocation per packet id: a bad trade on a Pi (docs/gateway.md, benchmark).
      writeCache: false,
      // mqtt.js logs every packet through `debug`, whose rest parameters build an array per call even when off:
      // about a tenth of the heap the gateway allocated per message. Kept when DEBUG asks for any namespace.
      ...(process.env.DEBUG ? {} : { log: noLog }),
      // By default every PUBACK stops and restarts the keepalive interval (a new timer and closure per packet, two
      // per mesh message). Without it, a PINGREQ goes every keepalive whatever the traffic, and a silent broker is
      // still found within 1.5 keepalives.
      reschedulePings: false,
      messageIdProvider: this.own.ids,
      will: { topic: this.options.will.topic, payload: Buffer.from(this.options.will.payload), qos: 1, retain: true },
      rejectUnauthorized: c.tls.reject_unauthorized,
    };
    if (c.username !== null) opts.username = c.username;
    if (c.password !== null) opts.password = c.password;
    if (this.tlsFiles?.ca) opts.ca = this.tlsFiles.ca;
    if (this.tlsFiles?.cert) opts.cert = this.tlsFiles.cert;
    if (this.tlsFiles?.key) opts.key = this.tlsFiles.key;
    if (c.tls.key_passphrase !== null) (opts as Record<string, unknown>).passphrase = c.tls.key_passphrase;
    if (c.tls.servername !== null) (opts as Record<string, unknown>).servername = c.tls.servername;
    return opts;
  }

  private connect(): void {
    if (this.stopped) return;
    this.generation += 1;
    const generation = this.generation;
    const own: OwnPublishes = { ids: new PacketIds(), acks: new Map() };
    this.own = own;
    const client = mqtt.connect(this.options.config.url, { ...this.clientOptions(), manualConnect: true });
    this.tapPubacks(client, own);
    client.on('packetreceive', this.onPacket);
    this.client = client;
    let refusedVersion = false;
    client.on('connect', (connack) => {
      if (generation !== this.generation) return;
      // Nagle's algorithm holds a small write until the previous segment is acknowledged, and a broker that answers
      // a QoS 0 publish with nothing delays that TCP ACK (~40 ms on Linux): every message publish queued behind a Home
      // Assistant event waited for it (frame -> broker p50 5 -> 24 ms in bench:gateway). mqtt.js leaves it on.
      (client.stream as { setNoDelay?: (on: boolean) => unknown }).setNoDelay?.(true);
      this.attempt = 0;
      this.isUp = true;
      this.connects += 1;
      this.lastError = undefined;
      this.refusal = undefined;
      this.options.logger.info({ url: redactUrl(this.options.config.url), protocolVersion: this.version }, 'connected to the broker');
      for (const [filter, qos] of this.subscriptions) this.subscribeNow(client, filter, qos);
      for (const { filter, qos } of this.protocolSubscriptions.values()) this.subscribeNow(client, filter(this.version), qos);
      this.emit('up', { protocolVersion: this.version, sessionPresent: connack.sessionPresent });
    });
    client.on('message', (topic, payload, packet) => {
      if (generation !== this.generation) return;
      const properties = packet.properties as Record<string, unknown> | undefined;
      this.emit('message', properties ? { topic, payload, properties } : { topic, payload });
    });
    client.on('error', (err: Error & { code?: number | string }) => {
      if (generation !== this.generation) return;
      const code = typeof err.code === 'number' ? err.code : undefined;
      if (code !== undefined && UNSUPPORTED_VERSION.has(code) && this.auto && this.version === 5) {
        refusedVersion = true;
        this.version = 4;
        this.options.logger.info('the broker does not speak MQTT 5; using MQTT 3.1.1');
        return;
      }
      this.lastError = err.message;
      if (code !== undefined && NOT_AUTHORISED.has(code)) {
        this.refusal = `${err.message} (code ${code})`;
        this.options.logger.error({ code }, 'the broker refused the credentials');
      }
      else this.options.logger.warn({ err: { message: err.message, code: err.code } }, 'broker connection error');
    });
    client.on('close', () => {
      if (generation !== this.generation) return;
      const wasUp = this.isUp;
      this.isUp = false;
      // This client is done: a fresh one per attempt keeps no half-sent state around.
      this.generation += 1;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end(true);
      this.failOwn('the connection was replaced');
      if (wasUp) this.emit('down', { reason: this.lastError ?? 'connection closed' });
      if (this.stopped) return;
      if (refusedVersion) this.connect();
      else this.scheduleReconnect();
    });
    client.connect();
  }

  private scheduleReconnect(): void {
    const c = this.options.config;
    // The project's one retry curve, jittered between half and the whole step: many gateways restarted by one power
    // cut do not reconnect in step. (A draw of r takes r/2 of the step off; `1 - random` keeps the draws' old meaning.)
    const delay = Math.round(jitteredDelay(this.attempt, { initialMs: c.reconnect_min_ms, maxMs: c.reconnect_max_ms, factor: 2, jitter: 0.5 }, 1 - this.random()));
    this.attempt += 1;
    this.reconnectTimer = this.clock.setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, delay);
  }

  private emit<K extends keyof ConnectionEvents>(event: K, payload: ConnectionEvents[K]): void {
    this.events.emit(event, payload as never);
  }
}

/** The broker URL without credentials, for logs (lib/redact.ts, the one URL redactor). */
export { redactUrl };
