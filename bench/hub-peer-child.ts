/**
 * The minimal hub peer of `bench/hub.bench.ts` (issue 11): a process of its own, so that none of its work is on the
 * clients' CPU, speaking just enough of protocol v2 for a send loop — `connect.challenge`, `hello-ok` (v2 granted,
 * as the dev hub does by default), an empty replay ended by `replay.done`, and one immediate `message.ack` per
 * `message.send` / `message.reply`. Everything else a client sends (its `connect` aside) is read and ignored.
 * It listens on 127.0.0.1 port 0 and says `{ type: 'port', port }` over IPC; `stop` (or the parent going away)
 * ends it.
 */
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

interface Uplink {
  event?: unknown;
  trace_id?: unknown;
  chat_id?: unknown;
  to?: unknown;
  payload?: { nonce?: unknown; device_id?: unknown; message_id?: unknown };
}

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
let connections = 0;

function frame(event: string, traceId: string, payload: object, extra: object = {}): string {
  return JSON.stringify({ version: '2', event, trace_id: traceId, emitted_at: Date.now(), ...extra, payload });
}

function onConnection(ws: WebSocket): void {
  const nonce = randomBytes(18).toString('base64url');
  const epoch = `ep-${++connections}`;
  let live = false;
  ws.send(frame('connect.challenge', 'challenge', { nonce }));
  ws.on('message', (data: RawData) => {
    const up = JSON.parse(String(data)) as Uplink;
    const traceId = typeof up.trace_id === 'string' ? up.trace_id : '';
    if (!live) {
      if (up.event !== 'connect') return;
      if (up.payload?.nonce !== nonce) {
        ws.send(frame('hello-fail', traceId, { reason: 'nonce mismatch' }), () => ws.terminate());
        return;
      }
      live = true;
      ws.send(frame('hello-ok', traceId, { device_id: up.payload.device_id, delivery_mode: 'device_replay', ack_mode: 'dseq', ack_epoch: epoch }));
      ws.send(JSON.stringify({ version: '2', event: 'replay.done', trace_id: 'rd', emitted_at: Date.now(), dseq: 1, payload: {} }));
      return;
    }
    if (up.event !== 'message.send' && up.event !== 'message.reply') return;
    const now = Date.now();
    const echo = up.to === undefined ? { chat_id: up.chat_id } : { chat_id: up.chat_id, to: up.to };
    ws.send(frame('message.ack', traceId, { message_id: up.payload?.message_id, accepted_at: now }, echo));
  });
  ws.on('error', () => ws.terminate());
}

server.on('connection', onConnection);
server.once('listening', () => process.send!({ type: 'port', port: (server.address() as { port: number }).port }));
process.on('message', (m: { type?: string }) => {
  if (m.type === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
