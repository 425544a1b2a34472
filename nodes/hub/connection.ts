/**
 * The one `HubClient` of a hub-config node and the nodes that use it. The client (and its store) is built when the
 * first user registers and stopped when the last one deregisters or the config node closes; every user sees the
 * same status, and the listeners a user brings are attached to each client built while it is registered and
 * removed again, exactly those, when it leaves.
 *
 * A new client is never built while the previous one is still stopping: its store file is held exclusively until
 * then, and a redeploy that restarts only the user nodes would otherwise race it.
 */
import type { HubClient, HubClientEvents, HubStatus } from '../../lib/hub';
import type { StatusView } from './status-view';

/** The named events of the client (its event map also has an index signature, which is left out here). */
export type HubEventName = keyof { [K in keyof HubClientEvents as string extends K ? never : K]: true } & string;

export type HubListeners = { [K in HubEventName]?: (value: HubClientEvents[K]) => void };

/** What a user node hands to `register`. */
export interface HubUser {
  id: string;
  /** Receives every status change of the connection (and the current one at once). */
  onStatus(view: StatusView): void;
  listeners?: HubListeners;
}

export interface OpenedClient {
  client: HubClient;
  /** Stops the client and closes its store. */
  close(): Promise<void>;
}

export interface HubConnectionDeps {
  /** Builds a client and its store; throws a coded error when it cannot (bad options, unusable store). */
  open(): OpenedClient;
  /** The status every user shows for a client status. */
  render(status: HubStatus): StatusView;
  /** The status shown when `open` failed. */
  renderFailure(err: unknown): StatusView;
  /** Called once per failure of `open`, for the log. */
  failed(err: unknown): void;
  /** How often the "retry in N s" text of a backoff is refreshed. */
  backoffTickMs: number;
}

interface Attached {
  opened: OpenedClient;
  /** What to undo when a user leaves (`userId`) or the client goes (all of them). */
  detach: Array<{ userId: string | undefined; off: () => void }>;
}

export class HubConnection {
  private readonly users = new Map<string, HubUser>();
  private current: Attached | undefined;
  private stopping: Promise<void> | undefined;
  private view: StatusView;
  private failure: unknown;
  private tick: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: HubConnectionDeps) {
    this.view = { state: 'idle', fill: 'grey', shape: 'ring', text: '' };
  }

  /** The live client, or undefined (no users yet, still stopping the previous one, or it could not be built). */
  get client(): HubClient | undefined {
    return this.current?.opened.client;
  }

  /** Why the client could not be built, while that is the case. */
  get failureCause(): unknown {
    return this.failure;
  }

  get userCount(): number {
    return this.users.size;
  }

  status(): StatusView {
    return this.view;
  }

  register(user: HubUser): void {
    if (this.closed) return;
    this.users.set(user.id, user);
    user.onStatus(this.view);
    if (this.current) this.attach(this.current, user);
    // After a failure the next attempt waits for a redeploy (users gone, users back): one log line, not one per node.
    else if (!this.stopping && this.failure === undefined) this.openClient();
  }

  /** Resolves once the user's listeners are gone and, if it was the last user, the client has stopped. */
  async deregister(userId: string): Promise<void> {
    const had = this.users.delete(userId);
    if (!had) return;
    if (this.users.size > 0) {
      if (this.current) this.detachUser(this.current, userId);
      return;
    }
    await this.stopClient();
  }

  /** The config node closes: users or not, the client stops, and nothing is built again. */
  async close(): Promise<void> {
    this.closed = true;
    this.users.clear();
    await this.stopClient();
    await this.stopping;
  }

  private openClient(): void {
    let opened: OpenedClient;
    try {
      opened = this.deps.open();
    } catch (err) {
      this.failure = err;
      this.deps.failed(err);
      this.publish(this.deps.renderFailure(err));
      return;
    }
    this.failure = undefined;
    const attached: Attached = { opened, detach: [] };
    this.current = attached;
    const onState = (status: HubStatus): void => this.onState(status);
    opened.client.on('state', onState);
    attached.detach.push({ userId: undefined, off: () => opened.client.off('state', onState) });
    for (const user of this.users.values()) this.attach(attached, user);
    this.onState(opened.client.status());
    opened.client.start();
  }

  private attach(attached: Attached, user: HubUser): void {
    const client = attached.opened.client;
    for (const [event, listener] of Object.entries(user.listeners ?? {})) {
      if (!listener) continue;
      const name = event as HubEventName;
      const fn = listener as (value: HubClientEvents[typeof name]) => void;
      client.on(name, fn);
      attached.detach.push({ userId: user.id, off: () => client.off(name, fn) });
    }
  }

  private detachUser(attached: Attached, userId: string): void {
    attached.detach = attached.detach.filter((entry) => {
      if (entry.userId !== userId) return true;
      entry.off();
      return false;
    });
  }

  private stopClient(): Promise<void> {
    this.clearTick();
    const attached = this.current;
    if (!attached) {
      this.failure = undefined;
      return this.stopping ?? Promise.resolve();
    }
    this.current = undefined;
    // The final 'stopped' state is shown before the listeners go, so the last status is not a stale "connected".
    const stopped = attached.opened.close().finally(() => {
      for (const entry of attached.detach) entry.off();
      attached.detach = [];
      if (this.stopping === stopped) this.stopping = undefined;
      // Someone registered while we were stopping: now the store file is free again.
      if (!this.closed && this.users.size > 0 && !this.current) this.openClient();
    });
    this.stopping = stopped;
    return stopped;
  }

  private onState(status: HubStatus): void {
    this.clearTick();
    this.publish(this.deps.render(status));
    if (status.state === 'backoff' && status.retryAt !== undefined) {
      const client = this.current?.opened.client;
      this.tick = setInterval(() => {
        if (!client || client.state !== 'backoff') return this.clearTick();
        this.publish(this.deps.render(client.status()));
      }, this.deps.backoffTickMs);
      this.tick.unref();
    }
  }

  private clearTick(): void {
    if (this.tick) clearInterval(this.tick);
    this.tick = undefined;
  }

  private publish(view: StatusView): void {
    this.view = view;
    for (const user of this.users.values()) user.onStatus(view);
  }
}
