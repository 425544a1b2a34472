/**
 * Builds the `SendHandle` a send returns: a real promise of the answer with the send's ids and its `queued`
 * promise attached, so a caller learns the ids at once and the durable moment without matching `queued` events.
 *
 * `queued` is made on first read only: most callers await the answer alone, and a second promise per send was a
 * tenth of the send path's allocation. Until someone reads it, settling it only records the outcome.
 */
import type { HubError } from '../errors';
import type { SendAck, SendHandle, SendQueued } from '../events';

export interface PendingSend {
  handle: SendHandle;
  resolve(ack: SendAck): void;
  reject(err: HubError): void;
  /** Settles `queued` (with undefined when the send never became durable); later calls are ignored. */
  settleQueued(queued: SendQueued | undefined): void;
}

/** Per send: the outcome of `queued` and, once read, its promise. */
interface QueuedState {
  settled: boolean;
  value: SendQueued | undefined;
  promise: Promise<SendQueued | undefined> | undefined;
  resolve: ((q: SendQueued | undefined) => void) | undefined;
}

const QUEUED = Symbol('queued');

type Handle = Promise<SendAck> & { messageId: string | undefined; traceId: string | undefined; [QUEUED]: QueuedState };

/** The one getter every handle shares (a per-handle closure would give each handle its own hidden class). */
function readQueued(this: Handle): Promise<SendQueued | undefined> {
  const state = this[QUEUED];
  if (state.promise === undefined) {
    state.promise = state.settled ? Promise.resolve(state.value) : new Promise((res) => (state.resolve = res));
  }
  return state.promise;
}

const QUEUED_PROPERTY: PropertyDescriptor = { get: readQueued, enumerable: true, configurable: false };

class Pending implements PendingSend {
  readonly handle: SendHandle;
  private readonly state: QueuedState = { settled: false, value: undefined, promise: undefined, resolve: undefined };
  private settleAnswer!: (ack: SendAck) => void;
  private failAnswer!: (err: HubError) => void;

  constructor(messageId: string | undefined, traceId: string | undefined) {
    const answer = new Promise<SendAck>((res, rej) => {
      this.settleAnswer = res;
      this.failAnswer = rej;
    }) as Handle;
    answer.messageId = messageId;
    answer.traceId = traceId;
    answer[QUEUED] = this.state;
    void Object.defineProperty(answer, 'queued', QUEUED_PROPERTY);
    this.handle = answer as unknown as SendHandle;
  }

  resolve(ack: SendAck): void {
    this.settleAnswer(ack);
  }

  reject(err: HubError): void {
    this.failAnswer(err);
  }

  settleQueued(queued: SendQueued | undefined): void {
    const state = this.state;
    if (state.settled) return;
    state.settled = true;
    state.value = queued;
    state.resolve?.(queued);
    state.resolve = undefined;
  }
}

export function pendingSend(messageId: string | undefined, traceId: string | undefined): PendingSend {
  return new Pending(messageId, traceId);
}

/** A send refused before it was staged: the handle rejects with `err`, `queued` resolves undefined. */
export function refusedSend(err: unknown, messageId?: string, traceId?: string): SendHandle {
  const p = pendingSend(messageId, traceId);
  p.settleQueued(undefined);
  p.reject(err as HubError);
  return p.handle;
}
