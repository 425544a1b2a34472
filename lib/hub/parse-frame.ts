/**
 * The read layer's parser: turns one WebSocket text frame into an `InboundFrame` without ever throwing. A frame
 * that is not a JSON object is a failure, but its `dseq` is still recovered when one is visible, because a v2 client
 * must ack every dseq-bearing frame, corrupt ones included (guide §11.7, poison-frame quarantine).
 */
import type { InboundFrame, Peer, Sender } from './envelope';
import { id, isObject, num, str } from './json';

export type ParsedFrame = { ok: true; frame: InboundFrame } | { ok: false; reason: string; dseq: number | undefined; raw: string };

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** A top-level `"dseq": N` in text that did not parse; only the first occurrence counts. */
function scrapeDseq(text: string): number | undefined {
  const m = /"dseq"\s*:\s*(\d{1,15})(?!\d)/.exec(text);
  return m ? positiveInteger(Number(m[1])) : undefined;
}

function peer(value: unknown): Peer | undefined {
  if (!isObject(value)) return undefined;
  const pid = str(value.id);
  return pid === undefined ? undefined : { id: pid, type: str(value.type) ?? '' };
}

function sender(value: unknown): Sender | undefined {
  if (!isObject(value)) return undefined;
  const sid = str(value.id);
  return sid === undefined ? undefined : { id: sid, type: str(value.type) ?? '', nickName: str(value.nick_name) };
}

export function parseFrame(data: string | Buffer | ArrayBuffer | Buffer[]): ParsedFrame {
  let raw: string;
  if (typeof data === 'string') raw = data;
  else if (Array.isArray(data)) raw = Buffer.concat(data).toString('utf8');
  else if (data instanceof ArrayBuffer) raw = Buffer.from(data).toString('utf8');
  else raw = data.toString('utf8');

  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, reason: `not JSON: ${(err as Error).message}`, dseq: scrapeDseq(raw), raw };
  }
  if (!isObject(value)) return { ok: false, reason: 'not a JSON object', dseq: undefined, raw };
  const payloadValid = isObject(value.payload);
  return {
    ok: true,
    frame: {
      event: str(value.event) ?? '',
      traceId: str(value.trace_id) ?? '',
      emittedAt: num(value.emitted_at),
      chatId: id(value.chat_id),
      chatType: str(value.chat_type),
      to: peer(value.to),
      sender: sender(value.sender),
      originDeviceId: id(value.origin_device_id),
      seq: positiveInteger(value.seq),
      dseq: positiveInteger(value.dseq),
      targetDeviceId: id(value.target_device_id),
      payload: payloadValid ? (value.payload as Record<string, unknown>) : {},
      payloadValid,
      envelope: value,
      raw,
    },
  };
}
