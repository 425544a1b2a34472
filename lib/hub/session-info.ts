/**
 * What the rest of the client knows of one hub connection (connection/session.ts): how its handshake ended, how it
 * ended, and the little a part may do with the live one. The receive and send paths hold a `LiveSession`, never the
 * WebSocket behind it.
 */
import type { Uplink } from './envelope';
import type { JsonObject } from './json';

export interface HelloInfo {
  payload: JsonObject;
  /** The device id the hub resolved (echoed, or our user id if none was sent). */
  deviceId: string | undefined;
  /** Present when the hub granted v2 (`ack_mode: "dseq"` with an `ack_epoch`). */
  ackEpoch: string | undefined;
  deliveryMode: string | undefined;
}

/** Why this side ended the connection, when it did. */
export type ClientCloseReason = 'stop' | 'dseq-gap' | 'dead-socket' | 'cursor-reset' | 'handshake-timeout' | 'hello-fail' | 'token-change';

export interface SessionEnd {
  code: number;
  reason: string;
  /** The connection reached `hello-ok`. */
  helloOk: boolean;
  helloFailReason: string | undefined;
  clientReason: ClientCloseReason | undefined;
  /** The socket never opened (refused, DNS, TLS, HTTP error). */
  neverOpened: boolean;
  error: string | undefined;
}

export interface LiveSession {
  /** Distinguishes the connections of one client (frames of an ended one lose their acks and replies). */
  readonly id: number;
  /** When the last frame arrived (the client's clock). */
  readonly lastFrameAt: number;
  /** False when the frame could not be put on the socket (it is closing or closed). */
  send(frame: Uplink): boolean;
  /** `send` of a frame already serialized (the outbox keeps its sends as text). */
  sendText(json: string): boolean;
  /** Runs `fn` with the socket corked, so that the frames it sends leave in one write. */
  batch(fn: () => void): void;
  close(reason: ClientCloseReason, hard?: boolean): void;
  pauseReading(): void;
  resumeReading(): void;
}
