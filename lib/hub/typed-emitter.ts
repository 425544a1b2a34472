/**
 * A typed event emitter (a misspelled event name fails to compile) that isolates listeners: a listener that throws
 * is reported on `warning` and the client's own work goes on. It never emits Node's special `error` event, so an
 * unlistened failure cannot crash the process.
 */
import { EventEmitter } from 'node:events';

export type EventMap = { [event: string]: unknown };

export class TypedEmitter<Events extends EventMap> {
  private readonly inner = new EventEmitter();

  constructor(private readonly onListenerError: (event: string, err: unknown) => void) {
    // Many hub-in nodes may listen to one shared client.
    this.inner.setMaxListeners(0);
  }

  on<K extends keyof Events & string>(event: K, listener: (value: Events[K]) => void): this {
    this.inner.on(event, listener);
    return this;
  }

  once<K extends keyof Events & string>(event: K, listener: (value: Events[K]) => void): this {
    this.inner.once(event, listener);
    return this;
  }

  off<K extends keyof Events & string>(event: K, listener: (value: Events[K]) => void): this {
    this.inner.off(event, listener);
    return this;
  }

  listenerCount<K extends keyof Events & string>(event: K): number {
    return this.inner.listenerCount(event);
  }

  emit<K extends keyof Events & string>(event: K, value: Events[K]): void {
    for (const listener of this.inner.rawListeners(event) as Array<(v: Events[K]) => void>) {
      try {
        listener.call(this, value);
      } catch (err) {
        this.onListenerError(event, err);
      }
    }
  }
}
