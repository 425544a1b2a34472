/**
 * A small typed event emitter: a misspelled event name or a wrong payload fails to compile.
 *
 * Each event carries one payload. Unlike Node's EventEmitter, a listener that throws does not unwind into the
 * component that emitted (a router bug must not tear down a BLE connection half-way through a handshake; a hub-in
 * node must not break the hub client shared by its neighbours): the error goes to `onListenerError` and the
 * remaining listeners still run. There is no special `error` event, so an unlistened failure cannot crash the process.
 */

type AnyListener = (payload: never) => void;
type PayloadOf<F> = F extends (payload: infer P) => void ? P : never;

/** The listener map of an event map that names payloads: `{ state: HubStatus }` → `{ state: (v: HubStatus) => void }`. */
export type ListenersOf<Payloads> = { [K in keyof Payloads]: (payload: Payloads[K]) => void };

/** The listening face of an emitter: what a consumer of a radio may call. */
export interface TypedEvents<E extends { [K in keyof E]: AnyListener }> {
  on<K extends keyof E>(event: K, listener: E[K]): this;
  once<K extends keyof E>(event: K, listener: E[K]): this;
  off<K extends keyof E>(event: K, listener: E[K]): this;
  /** EventEmitter's name for `off`. */
  removeListener<K extends keyof E>(event: K, listener: E[K]): this;
  listenerCount(event: keyof E): number;
}

export class TypedEmitter<E extends { [K in keyof E]: AnyListener }> implements TypedEvents<E> {
  readonly #listeners = new Map<keyof E, Array<{ fn: E[keyof E]; once: boolean }>>();
  readonly #onListenerError: (err: unknown, event: keyof E) => void;

  constructor(onListenerError: (err: unknown, event: keyof E) => void) {
    this.#onListenerError = onListenerError;
  }

  on<K extends keyof E>(event: K, listener: E[K]): this {
    return this.#add(event, listener, false);
  }

  once<K extends keyof E>(event: K, listener: E[K]): this {
    return this.#add(event, listener, true);
  }

  off<K extends keyof E>(event: K, listener: E[K]): this {
    const list = this.#listeners.get(event);
    if (list === undefined) return this;
    const at = list.findIndex((entry) => entry.fn === listener);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.#listeners.delete(event);
    return this;
  }

  removeListener<K extends keyof E>(event: K, listener: E[K]): this {
    return this.off(event, listener);
  }

  listenerCount(event: keyof E): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  removeAllListeners(): void {
    this.#listeners.clear();
  }

  /** Calls every listener of `event` in registration order; returns whether there was any. */
  emit<K extends keyof E>(event: K, payload: PayloadOf<E[K]>): boolean {
    const list = this.#listeners.get(event);
    if (list === undefined || list.length === 0) return false;
    // A snapshot: listeners added or removed during the emit take effect from the next one.
    for (const entry of [...list]) {
      if (entry.once) this.off(event, entry.fn as E[K]);
      try {
        (entry.fn as unknown as (p: PayloadOf<E[K]>) => void)(payload);
      } catch (err) {
        this.#onListenerError(err, event);
      }
    }
    return true;
  }

  #add<K extends keyof E>(event: K, listener: E[K], once: boolean): this {
    let list = this.#listeners.get(event);
    if (list === undefined) {
      list = [];
      this.#listeners.set(event, list);
    }
    list.push({ fn: listener, once });
    return this;
  }
}
