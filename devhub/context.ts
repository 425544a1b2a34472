/**
 * What every part of one running hub shares. Built once by server.ts and passed down explicitly: the hub holds no
 * module-level state, so two hubs in one process (tests start many) never see each other.
 */
import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { TypedEmitter, type ListenersOf } from '../lib/typed-emitter';
import type { ResolvedConfig } from './config';
import type { Directory } from './directory';
import type { FaultBook } from './faults';
import type { Inbox } from './inbox';
import type { DevHubRuntime } from './options';
import type { Presence } from './presence';
import type { ReadWatermarks } from './read-watermarks';
import type { SessionRegistry } from './sessions';
import type { StreamBuffers } from './stream-merge';
import type { DevHubEventMap, ReceivedFrame } from './types';
import type { KickBackoff } from './kick';
import type { DeferredNotify } from './deferred-notify';

export type LogFn = NonNullable<DevHubRuntime['log']>;

/**
 * The dev hub's events (admin API, tests), on the project's one typed emitter. A listener that throws does not unwind
 * into the hub's own handling of a frame; its error is thrown again on its own, so a test's failed assertion inside a
 * listener still fails the test.
 */
export class HubEvents {
  private readonly emitter = new TypedEmitter<ListenersOf<DevHubEventMap>>((err) => {
    queueMicrotask(() => {
      throw err;
    });
  });

  emit<K extends keyof DevHubEventMap>(event: K, value: DevHubEventMap[K]): void {
    this.emitter.emit(event, value as never);
  }

  on<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): void {
    this.emitter.on(event, listener as ListenersOf<DevHubEventMap>[K]);
  }

  off<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): void {
    this.emitter.off(event, listener as ListenersOf<DevHubEventMap>[K]);
  }
}

export class IdSource {
  private readonly monotonic = monotonicFactory();
  private connections = 0;

  constructor(private readonly now: () => number) {}

  ulid(): string {
    return this.monotonic(this.now());
  }

  /** The id the hub mints when a client omits one (§7.6). */
  messageId(): string {
    return `msg-${this.ulid()}`;
  }

  connectionId(): string {
    return `c${++this.connections}`;
  }

  /** §3.2: 18 random bytes, base64url, 24 characters, unpadded. */
  nonce(): string {
    return randomBytes(18).toString('base64url');
  }
}

/**
 * A bounded ring of the uplinks received, for tests to assert on what a client sent. Bounded by count and by the
 * size of the frames it holds, so a client pushing 8 MiB frames cannot make the hub hoard them.
 */
export class ReceivedLog {
  private readonly items: Array<{ item: ReceivedFrame; size: number }> = [];
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes: number,
  ) {}

  push(item: ReceivedFrame, size: number): void {
    this.items.push({ item, size });
    this.bytes += size;
    while (this.items.length > this.capacity || (this.bytes > this.maxBytes && this.items.length > 1)) {
      this.bytes -= this.items.shift()!.size;
    }
  }

  list(filter: { user_id?: string; device_id?: string; event?: string } = {}): ReceivedFrame[] {
    return this.items
      .map((e) => e.item)
      .filter(
        (f) =>
          (filter.user_id === undefined || f.user_id === filter.user_id) &&
          (filter.device_id === undefined || f.device_id === filter.device_id) &&
          (filter.event === undefined || f.event === filter.event),
      );
  }
}

export interface HubContext {
  readonly config: ResolvedConfig;
  readonly settings: ResolvedConfig['settings'];
  now(): number;
  log: LogFn;
  readonly directory: Directory;
  readonly inbox: Inbox;
  readonly sessions: SessionRegistry;
  readonly presence: Presence;
  readonly watermarks: ReadWatermarks;
  readonly faults: FaultBook;
  readonly streams: StreamBuffers;
  readonly events: HubEvents;
  readonly ids: IdSource;
  readonly received: ReceivedLog;
  readonly kicks: KickBackoff;
  readonly deferredNotify: DeferredNotify;
  /** Timers owned by the hub (cleared on stop). */
  readonly timers: Set<NodeJS.Timeout>;
  /** Set once `stop()` began: nothing new is scheduled. */
  stopping: boolean;
}

/** setTimeout tracked by the hub, so stop() leaves no timer behind. */
export function later(ctx: HubContext, ms: number, fn: () => void): NodeJS.Timeout {
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    if (!ctx.stopping) fn();
  }, ms);
  ctx.timers.add(timer);
  return timer;
}
