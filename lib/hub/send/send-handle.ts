/**
 * Builds the `SendHandle` a send returns: a real promise of the answer with the send's ids and its `queued`
 * promise attached, so a caller learns the ids at once and the durable moment without matching `queued` events.
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

export function pendingSend(messageId: string | undefined, traceId: string | undefined): PendingSend {
  let resolve!: (ack: SendAck) => void;
  let reject!: (err: HubError) => void;
  let settleQueued!: (q: SendQueued | undefined) => void;
  const answer = new Promise<SendAck>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const queued = new Promise<SendQueued | undefined>((res) => {
    settleQueued = res;
  });
  const handle = Object.assign(answer, { messageId, traceId, queued }) as SendHandle;
  return { handle, resolve, reject, settleQueued };
}

/** A send refused before it was staged: the handle rejects with `err`, `queued` resolves undefined. */
export function refusedSend(err: unknown, messageId?: string, traceId?: string): SendHandle {
  const p = pendingSend(messageId, traceId);
  p.settleQueued(undefined);
  p.reject(err as HubError);
  return p.handle;
}
