/**
 * The second output of hub-out: one report per send, `message.ack` or `message.error`, in snake_case like the
 * rest of the node's messages. A send the client gave up on (`sendExpiry`) is reported as an error with
 * `origin: "client"` and code `expired`.
 */
import { HubError, type SendAck, type SendRejection } from '../../lib/hub';

export interface AckReport {
  status: 'ack';
  event: 'message.ack';
  action: string;
  chat_id: string;
  message_id: string;
  trace_id: string;
  accepted_at: number | undefined;
  attempts: number;
}

export interface ErrorReport {
  status: 'error';
  event: 'message.error';
  action: string;
  origin: 'hub' | 'client';
  code: string;
  reason: string | undefined;
  chat_id: string | undefined;
  message_id: string | undefined;
  trace_id: string | undefined;
  rejected_at: number | undefined;
}

export function ackReport(action: string, ack: SendAck): AckReport {
  return {
    status: 'ack',
    event: 'message.ack',
    action,
    chat_id: ack.chatId,
    message_id: ack.messageId,
    trace_id: ack.traceId,
    accepted_at: ack.acceptedAt,
    attempts: ack.attempts,
  };
}

export function rejectionReport(action: string, r: SendRejection): ErrorReport {
  return {
    status: 'error',
    event: 'message.error',
    action,
    origin: r.origin,
    code: r.code,
    reason: r.reason,
    chat_id: r.chatId,
    message_id: r.messageId,
    trace_id: r.traceId,
    rejected_at: r.rejectedAt,
  };
}

/** The report for a send's final failure, or undefined when it is no answer at all (the client stopped; the send stays queued). */
export function failureReport(action: string, err: unknown): ErrorReport | undefined {
  if (!(err instanceof HubError) || (err.code !== 'SEND_REJECTED' && err.code !== 'SEND_EXPIRED')) return undefined;
  const d = err.details ?? {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  return {
    status: 'error',
    event: 'message.error',
    action,
    origin: err.code === 'SEND_REJECTED' ? 'hub' : 'client',
    code: err.code === 'SEND_REJECTED' ? (str(d.serverCode) ?? '') : 'expired',
    reason: err.code === 'SEND_REJECTED' ? str(d.reason) : err.message,
    chat_id: str(d.chatId),
    message_id: str(d.messageId),
    trace_id: str(d.traceId),
    rejected_at: num(d.rejectedAt),
  };
}
