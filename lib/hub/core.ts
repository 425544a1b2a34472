/**
 * What the hub client's parts share — the connection loop and liveness (connection/), the receive pipeline and its
 * handlers (receive/), the send path (send/) — and the one internal event map through which each tells the others
 * what happened. A part reads the session state here and never writes it: the client changes it in answer to these
 * events, so that no part reaches into another and the order of a session's life is decided in one place.
 */
import type { Clock } from '../clock';
import type { Store } from '../store';
import { TypedEmitter, type ListenersOf } from '../typed-emitter';
import type { Uplink } from './envelope';
import type { HubError } from './errors';
import type { HubClientEvents, HubState, HubStatus } from './events';
import type { IdMinter } from './ids';
import type { ResolvedOptions } from './options';
import type { ParsedFrame } from './parse-frame';
import type { HelloInfo, LiveSession, SessionEnd } from './session-info';

export type StateChange = Omit<HubStatus, 'since' | 'attempt' | 'deviceId'> & Partial<Pick<HubStatus, 'since'>>;

export interface InternalEvents {
  /** connection: the current session reached `hello-ok`; the client makes it the live one. */
  'session-open': { session: LiveSession; hello: HelloInfo };
  /** connection: a frame of the current session, after `hello-ok`. */
  frame: { session: LiveSession; parsed: ParsedFrame };
  /** connection: a `dseq` arrived out of order; the session closes so that replay refills the gap. */
  'dseq-gap': { expected: number; got: number };
  /** connection: the current session ended (the client's view of it is reset before the loop decides what next). */
  'session-end': { session: LiveSession; end: SessionEnd };
  /** connection: the client's state moves on. */
  state: StateChange;
  /** connection (liveness): no frame for the idle time during replay, so replay is over. */
  'replay-idle': LiveSession;
  /** receive: `replay.done` arrived on this session (after the frames before it were committed). */
  'replay-done': number;
  /** receive: the frame with this dseq/seq is durably handled. */
  persisted: { sessionId: number; dseq: number | undefined; seq: number | undefined };
  /** receive: a batch committed (the frame-path tick of the ack scheduler). */
  'batch-committed': undefined;
  /** receive: a batch's transaction failed: nothing of it is acked, and the session must be dropped. */
  'commit-failed': unknown;
  /** receive: the backlog reached a limit (true) or went back under half of both (false). */
  backlog: boolean;
  /** any part: reported on the public `warning` event. */
  warning: HubError;
}

export class HubCore {
  /** The internal events. */
  readonly bus: TypedEmitter<ListenersOf<InternalEvents>>;
  /** The public events, as `HubClient.on` hears them. */
  readonly events: TypedEmitter<ListenersOf<HubClientEvents>>;

  // The session state every part reads; written by client.ts only.
  state: HubState = 'idle';
  /** The session past `hello-ok`, if any. */
  live: LiveSession | undefined;
  replaying = false;
  /** `stop()` has begun. */
  stopping = false;
  /** The last received batch could not be persisted: the next `hello-ok` must not reset the backoff. */
  persistFailed = false;
  /** The session whose socket reading is paused (receive backlog full, or a consumer's hold). */
  readPaused: LiveSession | undefined;
  /** The session a `device.cursor.reset` of ours waits to see closed by the hub. */
  resetSession: number | undefined;

  constructor(
    readonly options: ResolvedOptions,
    readonly clock: Clock,
    readonly store: Store,
    readonly userId: string,
    readonly deviceId: string,
    readonly ids: IdMinter,
    onListenerError: (err: unknown, event: string) => void,
  ) {
    this.bus = new TypedEmitter<ListenersOf<InternalEvents>>((err, event) => onListenerError(err, `internal ${event}`));
    this.events = new TypedEmitter<ListenersOf<HubClientEvents>>((err, event) => onListenerError(err, String(event)));
  }

  traceId(prefix?: string): string {
    return this.ids.traceId(prefix);
  }

  warn(err: HubError): void {
    this.bus.emit('warning', err);
  }

  /** A public event; `warning` goes through `warn` so that it is logged too. */
  report<K extends keyof HubClientEvents & string>(event: K, value: HubClientEvents[K]): void {
    if (event === 'warning') this.warn(value as HubError);
    else this.events.emit(event, value as never);
  }

  /** True when `event` has a listener now (so that a value nobody hears is not built). */
  listens(event: keyof HubClientEvents & string): boolean {
    return this.events.listenerCount(event) > 0;
  }

  /** Sends on the live session if it is still `sessionId` (frames of an ended session lose their replies). */
  sendOn(sessionId: number, frame: Uplink): boolean {
    return this.live?.id === sessionId ? this.live.send(frame) : false;
  }
}
