/**
 * Shared fixtures for the client's integration tests: a real dev hub on 127.0.0.1:0, clients with fast timings,
 * and event waiters (tests wait on events, never on sleeps). Everything started here is stopped in `cleanup()`.
 */
import type { DevHub, DevHubOptions } from '../../../../devhub';
import { startDevHub } from '../../../../devhub';
import { HubClient, type HubClientEvents, type HubClientOptions } from '../../../../lib/hub';

export const ALICE = { id: 'usr_alice', token: 'tok-alice', nick_name: 'Alice' };
export const BOB = { id: 'usr_bob', token: 'tok-bob', nick_name: 'Bob' };
export const CAROL = { id: 'usr_carol', token: 'tok-carol' };
export const CHAT = 'chat-ab';
export const GROUP = 'chat-group';

export function hubOptions(extra: DevHubOptions = {}): DevHubOptions {
  return {
    users: [ALICE, BOB, CAROL],
    chats: [
      { id: CHAT, members: [ALICE.id, BOB.id] },
      { id: GROUP, members: [ALICE.id, BOB.id, CAROL.id] },
    ],
    ...extra,
    settings: { ping_interval_ms: 0, ...extra.settings },
  };
}

/** Timings for tests: quick reconnects, no dead-socket probe unless a test wants one. */
export const FAST: Partial<HubClientOptions> = {
  backoff: { initialMs: 5, maxMs: 40, takeoverFloorMs: 20, jitter: 0.5 },
  pingSilenceMs: 0,
  ackTimeoutMs: 2000,
  replayIdleMs: 3000,
};

export class Harness {
  hub!: DevHub;
  private readonly clients: HubClient[] = [];

  async start(options: DevHubOptions = {}): Promise<DevHub> {
    this.hub = await startDevHub(hubOptions(options));
    return this.hub;
  }

  client(user: { id: string; token: string }, options: Partial<HubClientOptions> = {}): HubClient {
    const client = new HubClient({ url: this.hub.wsUrl, token: user.token, userId: user.id, deviceId: `${user.id}-d1`, ...FAST, ...options });
    this.clients.push(client);
    return client;
  }

  /** Starts the client and resolves once it is live (replay done). */
  async connected(client: HubClient): Promise<HubClient> {
    const live = next(client, 'state', (s) => s.state === 'connected');
    client.start();
    await live;
    return client;
  }

  async cleanup(): Promise<void> {
    for (const c of this.clients.splice(0)) await c.stop();
    await this.hub?.stop();
  }
}

/** The next `event` from `client` that satisfies `predicate`. */
export function next<K extends keyof HubClientEvents & string>(
  client: HubClient,
  event: K,
  predicate: (value: HubClientEvents[K]) => boolean = () => true,
  timeoutMs = 8000,
): Promise<HubClientEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`timed out waiting for '${event}'`));
    }, timeoutMs);
    const listener = (value: HubClientEvents[K]): void => {
      if (!predicate(value)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(value);
    };
    client.on(event, listener);
  });
}

/** Every `event` from `client` from now on. */
export function collect<K extends keyof HubClientEvents & string>(client: HubClient, event: K): Array<HubClientEvents[K]> {
  const out: Array<HubClientEvents[K]> = [];
  client.on(event, (v) => out.push(v));
  return out;
}

/** Resolves once `check()` is true, re-checking whenever `client` emits anything on `events`. */
export function when(client: HubClient, events: Array<keyof HubClientEvents & string>, check: () => boolean, timeoutMs = 8000): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const listeners: Array<[string, () => void]> = [];
    const done = (err?: Error): void => {
      clearTimeout(timer);
      for (const [e, l] of listeners) client.off(e as keyof HubClientEvents & string, l);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`timed out waiting on ${events.join(', ')}`)), timeoutMs);
    for (const e of events) {
      const l = (): void => {
        if (check()) done();
      };
      listeners.push([e, l]);
      client.on(e, l);
    }
  });
}

/** Resolves once `check()` is true, re-checking every few milliseconds (for state that emits no event, e.g. the hub's). */
export async function eventually(check: () => boolean, timeoutMs = 5000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An uplink as the hub logged it, typed loosely enough for assertions on its fields. */
export interface WireFrame {
  version: string;
  event: string;
  trace_id: string;
  chat_id?: string;
  to?: unknown;
  sender?: { id: string; type?: string };
  target_device_id?: string;
  payload: {
    message_id?: string;
    sequence?: number;
    fragments?: unknown[];
    streaming?: { status: string };
    message?: { context?: unknown; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** The uplinks of `userId` with `event` the hub received, oldest first. */
export function uplinks(h: Harness, userId: string, event: string): WireFrame[] {
  return h.hub.admin.received({ user_id: userId, event }).map((f) => f.frame as unknown as WireFrame);
}
