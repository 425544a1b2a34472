/**
 * A real MQTT broker for the gateway tests: aedes in-process on 127.0.0.1 (port 0 the first time, the same port
 * after a restart, so a client configured with the URL finds it again), plus a recording subscriber.
 */
import net from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient, type IClientOptions } from 'mqtt';

export interface TestBroker {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Stops the broker and drops every client connection (a broker crash, seen from the clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  /** Every PUBLISH a client sent, as the broker received it, across restarts (the broker's own log). */
  readonly published: Array<{ topic: string; payload: Buffer; retain: boolean; clientId: string }>;
}

export interface BrokerOptions {
  /** Only this user name and password may connect; any other gets CONNACK 4 (bad user name or password). */
  credentials?: { username: string; password: string };
}

export async function startBroker(port = 0, options: BrokerOptions = {}): Promise<TestBroker> {
  let aedes: Aedes | undefined;
  let server: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  let boundPort = port;
  const published: TestBroker['published'] = [];

  const up = async (): Promise<void> => {
    aedes = await Aedes.createBroker();
    const a = aedes;
    const wanted = options.credentials;
    if (wanted) {
      a.authenticate = (_client, username, password, done) => {
        if (username === wanted.username && password?.toString() === wanted.password) done(null, true);
        else done(Object.assign(new Error('bad user name or password'), { returnCode: 4 }) as never, false);
      };
    }
    // Recorded as the broker takes the packet in, before it answers PUBACK: aedes emits 'publish' only after its
    // persistence steps, by which time a loaded test process may already have seen what the PUBACK caused (the
    // gateway's mesh ACK), and "the broker had it first" would fail for the harness's sake.
    a.authorizePublish = (client, packet, done) => {
      if (client) published.push({ topic: packet.topic, payload: Buffer.from(packet.payload), retain: packet.retain, clientId: client.id });
      done(null);
    };
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      a.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(boundPort, '127.0.0.1', () => resolve());
    });
    boundPort = (server.address() as net.AddressInfo).port;
  };
  const down = async (): Promise<void> => {
    const s = server;
    const a = aedes;
    server = undefined;
    aedes = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    if (a) await new Promise<void>((resolve) => a.close(() => resolve()));
  };
  await up();
  return {
    get url() {
      return `mqtt://127.0.0.1:${boundPort}`;
    },
    get port() {
      return boundPort;
    },
    get running() {
      return server !== undefined;
    },
    stop: down,
    restart: up,
    published,
  };
}

export interface Received {
  topic: string;
  payload: Buffer;
  retain: boolean;
  /** As delivered: the lower of the publisher's QoS and the subscription's (1). */
  qos: number;
  properties?: Record<string, unknown>;
}

/** A subscriber that records everything on `filters` and lets a test wait for what it expects. */
export class Recorder {
  readonly messages: Received[] = [];
  private waiters: Array<{ test: () => boolean; resolve: () => void }> = [];

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const r: Received = { topic, payload, retain: packet.retain, qos: packet.qos };
      if (packet.properties) r.properties = packet.properties as Record<string, unknown>;
      this.messages.push(r);
      this.check();
    });
  }

  static async connect(url: string, filters: string[], options: IClientOptions = {}): Promise<Recorder> {
    const client = mqtt.connect(url, { reconnectPeriod: 200, connectTimeout: 5000, ...options });
    const recorder = new Recorder(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    await client.subscribeAsync(filters, { qos: 1 });
    // Resubscribe after a broker restart (the broker forgot the session).
    client.on('connect', () => void client.subscribeAsync(filters, { qos: 1 }).catch(() => undefined));
    return recorder;
  }

  on(topic: string): Received[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  json<T = Record<string, unknown>>(topic: string): T[] {
    return this.on(topic).map((m) => JSON.parse(m.payload.toString('utf8')) as T);
  }

  /** Resolves once `test()` holds (checked on every message); rejects after `ms`. */
  until(test: () => boolean, ms = 10000, what = 'condition'): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ test, resolve: done });
    });
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }

  private check(): void {
    for (const w of this.waiters.slice()) {
      if (w.test()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}

/** Resolves when `test()` holds, polling (for state that emits no event the test can hook). */
export async function eventually(test: () => boolean, ms = 10000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!test()) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
