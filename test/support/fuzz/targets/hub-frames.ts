/**
 * The hub read layer's `parseFrame` on mutated downlinks (structural JSON mutations and byte mutations), handed over
 * as a string, a Buffer, an ArrayBuffer or a list of Buffers as `ws` delivers them. `parseFrame` never throws: every
 * exception is foreign, a failed parse (`ok: false`) is the rejection, and the fields it returns keep their types
 * (a dseq recovered from a broken frame is a positive safe integer, the payload an object).
 */
import { parseFrame, type ParsedFrame } from '../../../../lib/hub/parse-frame';
import { type FuzzRng, mutateBytes, mutateJson } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';

const DOWNLINKS: readonly unknown[] = [
  {
    version: '2',
    event: 'message.send',
    trace_id: 't-1',
    emitted_at: 1_700_000_000_000,
    chat_id: 'cnv_1',
    chat_type: 'group',
    to: { id: 'cnv_1', type: 'group' },
    sender: { id: 'usr_a', type: 'direct', nick_name: 'Ä' },
    origin_device_id: 'd1',
    seq: 42,
    dseq: 7,
    payload: { message_id: 'msg-01HZX3J7Q8ZK5M2N4P6R8T0V2W', fragments: [{ kind: 'text', text: 'hi 👋' }], mentions: [], reply_to: null },
  },
  { version: '2', event: 'message.ack', trace_id: 't-2', dseq: 8, payload: { message_id: 'msg-01HZX3J7Q8ZK5M2N4P6R8T0V2W', status: 'stored' } },
  { event: 'hello-ok', payload: { protocol_version: 2, capabilities: ['dseq', 'stream', 'presence'], session_id: 's', heartbeat_ms: 30000 } },
  { event: 'message.stream', chat_id: 'c', dseq: 9, payload: { stream_id: 'st', index: 3, delta: 'abc', done: false } },
  { event: 'presence.update', payload: { user_id: 'usr_b', online: true, last_seen: 1 } },
  { event: 'ping', payload: {} },
  { event: 'message.error', trace_id: 't-3', payload: { code: 'chat_not_found', message: 'no such chat' } },
];

export type HubFrameInput = { bytes: Uint8Array; as: 'string' | 'buffer' | 'arraybuffer' | 'buffers' };

function check(result: ParsedFrame): void {
  if (result.ok) {
    const f = result.frame;
    if (typeof f.event !== 'string' || typeof f.payload !== 'object' || f.payload === null) throw new FuzzInvariantError('event or payload of the wrong type');
    for (const n of [f.seq, f.dseq]) {
      if (n !== undefined && !(Number.isSafeInteger(n) && n > 0)) throw new FuzzInvariantError(`seq/dseq ${String(n)} is not a positive safe integer`);
    }
  } else if (result.dseq !== undefined && !(Number.isSafeInteger(result.dseq) && result.dseq > 0)) {
    throw new FuzzInvariantError(`recovered dseq ${result.dseq} is not a positive safe integer`);
  }
}

export const hubFramesTarget: FuzzTarget<HubFrameInput> = {
  name: 'hub-frames',
  about: 'lib/hub parseFrame on mutated downlinks in every shape ws delivers; it must never throw',
  own: () => undefined,
  start(rng: FuzzRng): FuzzSession<HubFrameInput> {
    const corpus = DOWNLINKS.map((d) => new Uint8Array(Buffer.from(JSON.stringify(d), 'utf8')));
    let dseqRecovered = 0;
    return {
      next: () => {
        const original = rng.pick(corpus);
        const bytes = rng.chance(0.65) ? mutateJson(rng, original, corpus) : mutateBytes(rng, original, corpus);
        return { bytes, as: rng.pick(['string', 'buffer', 'buffer', 'arraybuffer', 'buffers'] as const) };
      },
      feed: ({ bytes, as }): Verdict => {
        const buf = Buffer.from(bytes);
        const cut = bytes.length === 0 ? 0 : (bytes.length * 7) >>> 4;
        const data =
          as === 'string'
            ? buf.toString('utf8')
            : as === 'buffer'
              ? buf
              : as === 'arraybuffer'
                ? (buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer)
                : [buf.subarray(0, cut), buf.subarray(cut)];
        const result = parseFrame(data);
        check(result);
        if (result.ok) return { accepted: true };
        if (result.dseq !== undefined) dseqRecovered++;
        return { accepted: false, code: result.reason.startsWith('not JSON') ? 'NOT_JSON' : 'NOT_AN_OBJECT' };
      },
      show: (input) => input.bytes,
      figures: () => ({ dseqRecovered }),
    };
  },
};
