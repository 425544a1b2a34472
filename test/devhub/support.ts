/**
 * A bare `ws` client for driving the dev hub frame by frame (deliberately not lib/hub: these tests pin the server's
 * side of the wire). Frames queue up as they arrive; `next(pred)` takes the first queued frame matching `pred`, or
 * waits for one. Silence is proven with barriers, never with sleeps: `barrier()` sends a JSON `ping` and returns the
 * frames that arrived before its `pong`.
 */
import WebSocket from 'ws';
import { startDevHub, type DevHub, type DevHubOptions, type DevHubRuntime } from '../../devhub';

export type Frame = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const ALL_CAPS = {
  multi_device: true,
  device_replay: true,
  chat_meta_events: true,
  delivery_receipt: true,
  notify_signals: true,
  permission_events: true,
  history_sync: true,
  reliable_delivery: true,
  reliable_delivery_v2: true,
  e2ee: false,
};

export interface Closed {
  code: number;
  reason: string;
}

let traceCounter = 0;
export function trace(prefix = 't'): string {
  return `${prefix}-${++traceCounter}`;
}

export class TestClient {
  readonly queue: Frame[] = [];
  readonly raw: string[] = [];
  private waiters: Array<{ pred: (f: Frame) => boolean; resolve: (f: Frame) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }> = [];
  readonly closed: Promise<Closed>;
  closeInfo: Closed | undefined;
  hello: Frame | undefined;
  /** Frames received between hello-ok and replay.done (replay.done included). */
  replay: Frame[] = [];
  epoch: string | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      this.raw.push(text);
      let frame: Frame;
      try {
        frame = JSON.parse(text) as Frame;
      } catch {
        frame = { event: '(not json)', text };
      }
      const i = this.waiters.findIndex((w) => w.pred(frame));
      if (i >= 0) {
        const [w] = this.waiters.splice(i, 1);
        clearTimeout(w.timer);
        w.resolve(frame);
      } else this.queue.push(frame);
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code: number, reason: Buffer) => {
        this.closeInfo = { code, reason: reason.toString() };
        for (const w of this.waiters.splice(0)) {
          clearTimeout(w.timer);
          w.reject(new Error(`socket closed (${code}) while waiting for a frame`));
        }
        resolve(this.closeInfo);
      });
    });
    ws.on('error', () => undefined);
  }

  static open(url: string, options: WebSocket.ClientOptions = {}): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, options);
      const client = new TestClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  next(pred: (f: Frame) => boolean = () => true, timeoutMs = 3000): Promise<Frame> {
    const i = this.queue.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]);
    if (this.closeInfo) return Promise.reject(new Error(`socket already closed (${this.closeInfo.code})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(new Error(`no matching frame within ${timeoutMs} ms; queued: ${JSON.stringify(this.queue.map((f) => f.event))}`));
      }, timeoutMs);
      this.waiters.push({ pred, resolve, reject, timer });
    });
  }

  event(name: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.event === name, timeoutMs);
  }

  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** Sends a JSON ping and resolves with every frame that arrived before its pong (taking them off the queue). */
  async barrier(): Promise<Frame[]> {
    const id = trace('barrier');
    this.send({ version: '2', event: 'ping', trace_id: id, emitted_at: 1, payload: {} });
    await this.next((f) => f.event === 'pong' && f.trace_id === id);
    return this.queue.splice(0);
  }

  ackDseq(frame: Frame): void {
    this.send({ version: '2', event: 'message.sync_ack', trace_id: trace('sa'), emitted_at: Date.now(), payload: { dseq: frame.dseq, epoch: this.epoch } });
  }

  close(): Promise<Closed> {
    this.ws.close();
    return this.closed;
  }

  terminate(): Promise<Closed> {
    this.ws.terminate();
    return this.closed;
  }
}

export interface LoginOptions {
  device_id?: string;
  capabilities?: Record<string, boolean>;
  /** Ack every dseq-bearing frame as it arrives (v2). Default true. */
  autoAck?: boolean;
  extra?: Record<string, unknown>;
}

/** Opens a connection, answers the challenge, and resolves after replay.done with `client.replay` filled. */
export async function login(hub: DevHub, token: string, options: LoginOptions = {}): Promise<TestClient> {
  const client = await TestClient.open(hub.wsUrl);
  // Attached before connect so that no frame of the replay burst slips past it.
  client.ws.on('message', (data: Buffer) => {
    let f: Frame;
    try {
      f = JSON.parse(data.toString('utf8')) as Frame;
    } catch {
      return;
    }
    if (f.event === 'hello-ok') client.epoch = f.payload.ack_epoch;
    if (options.autoAck !== false && typeof f.dseq === 'number' && client.epoch) client.ackDseq(f);
  });
  const challenge = await client.event('connect.challenge');
  client.send({
    version: '2',
    event: 'connect',
    trace_id: trace('connect'),
    emitted_at: Date.now(),
    payload: {
      token,
      nonce: challenge.payload.nonce,
      ...(options.device_id !== undefined ? { device_id: options.device_id } : {}),
      capabilities: options.capabilities ?? {},
      ...options.extra,
    },
  });
  const hello = await client.next((f) => f.event === 'hello-ok' || f.event === 'hello-fail');
  if (hello.event !== 'hello-ok') throw new Error(`login refused: ${hello.payload.reason}`);
  client.hello = hello;
  for (;;) {
    const f = await client.next();
    client.replay.push(f);
    if (f.event === 'replay.done') break;
  }
  return client;
}

export function sendMessage(client: TestClient, chatId: string, text: string, extra: { message_id?: string; event?: string; trace_id?: string } = {}): string {
  const traceId = extra.trace_id ?? trace('send');
  client.send({
    version: '2',
    event: extra.event ?? 'message.send',
    trace_id: traceId,
    emitted_at: Date.now(),
    chat_id: chatId,
    payload: {
      ...(extra.message_id !== undefined ? { message_id: extra.message_id } : {}),
      message_mode: 'normal',
      message: { body: { fragments: [{ kind: 'text', text }] }, context: { mentions: [], reply: null } },
    },
  });
  return traceId;
}

export function textOf(frame: Frame): string {
  return frame.payload.message.body.fragments.map((f: Frame) => f.text ?? '').join('');
}

/** Users a, b, c (tokens ta, tb, tc), a direct chat a–b and a group a–b–c. */
export const BASE_OPTIONS: DevHubOptions = {
  users: [
    { id: 'usr_a', nick_name: 'Alice', token: 'ta' },
    { id: 'usr_b', nick_name: 'Bob', token: 'tb' },
    { id: 'usr_c', nick_name: 'Carol', token: 'tc' },
    { id: 'usr_d', nick_name: 'Dan', token: 'td' },
  ],
  chats: [
    { id: 'chat-ab', members: ['usr_a', 'usr_b'] },
    { id: 'chat-abc', members: ['usr_a', 'usr_b', 'usr_c'] },
  ],
  settings: { ping_interval_ms: 0 },
};

export interface HubFixture {
  hub(): DevHub;
  /** `login` on this hub; the client is terminated after the test. */
  login(token: string, options?: LoginOptions): Promise<TestClient>;
  /** A raw connection (no handshake yet); terminated after the test. */
  open(): Promise<TestClient>;
}

/** Starts a hub before each test and stops it (and every client) afterwards. */
export function useHub(options: DevHubOptions | (() => DevHubOptions) = BASE_OPTIONS, runtime: DevHubRuntime = {}): HubFixture {
  let hub: DevHub | undefined;
  const clients: TestClient[] = [];
  beforeEach(async () => {
    hub = await startDevHub(typeof options === 'function' ? options() : options, runtime);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await hub?.stop();
    hub = undefined;
  });
  return {
    hub: () => hub!,
    async login(token, opts) {
      const client = await login(hub!, token, opts);
      clients.push(client);
      return client;
    },
    async open() {
      const client = await TestClient.open(hub!.wsUrl);
      clients.push(client);
      return client;
    },
  };
}

/** Merges settings into the base options. */
export function withSettings(settings: NonNullable<DevHubOptions['settings']>, extra: Partial<DevHubOptions> = {}): DevHubOptions {
  return { ...BASE_OPTIONS, ...extra, settings: { ...BASE_OPTIONS.settings, ...settings } };
}

/**
 * A call to the hub's admin HTTP API as its callers make it: the admin token as a bearer, a body as JSON.
 * `route` is relative to `adminUrl` (`devices`, `inbox?user_id=usr_a`, `faults/clear`).
 */
export function adminFetch(hub: Pick<DevHub, 'adminUrl' | 'adminToken'>, route: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<Response> {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  return fetch(`${hub.adminUrl}/${route}`, {
    method,
    headers: { authorization: `Bearer ${hub.adminToken}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}
