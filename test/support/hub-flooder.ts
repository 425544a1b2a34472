/**
 * A real second client of a hub that sends many `message.send` frames as fast as the hub takes them: a bare
 * WebSocket (challenge → connect → hello-ok, then sends), so that filling a hub inbox with hundreds of thousands of
 * messages costs a few seconds and not the full client's outbox. It keeps a bounded number of sends unanswered,
 * and resolves once the hub answered every one with `message.ack`.
 */
import WebSocket from 'ws';
import { EVENT, PROTOCOL_REVISION, uplink } from '../../lib/hub/envelope';

export interface FloodInput {
  url: string;
  token: string;
  deviceId: string;
  chatId: string;
  count: number;
  /** Text of message i (default `flood <i>` padded to about 120 characters). */
  text?: (i: number) => string;
  /** Sends outstanding before waiting for acks (default 2000). */
  window?: number;
}

export async function flood(input: FloodInput): Promise<{ acked: number; ms: number }> {
  const window = input.window ?? 2000;
  const text = input.text ?? ((i: number) => `flood ${i} ${'x'.repeat(110)}`);
  const ws = new WebSocket(input.url, { perMessageDeflate: false });
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let acked = 0;
    let live = false;
    const pump = (): void => {
      while (live && sent < input.count && sent - acked < window) {
        const i = sent++;
        ws.send(
          JSON.stringify(
            uplink(
              EVENT.send,
              `flood-${i}`,
              Date.now(),
              { message_id: `msg-flood-${input.deviceId}-${i}`, message: { body: { fragments: [{ kind: 'text', text: text(i) }] }, context: {} } },
              { chat_id: input.chatId },
            ),
          ),
        );
      }
    };
    ws.on('message', (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as { event: string; payload?: Record<string, unknown> };
      if (frame.event === EVENT.challenge) {
        ws.send(
          JSON.stringify(
            uplink(EVENT.connect, 'flood-connect', Date.now(), {
              token: input.token,
              nonce: frame.payload?.nonce ?? '',
              device_id: input.deviceId,
              client_version: 'flooder/1',
              protocol_version: PROTOCOL_REVISION,
              capabilities: {},
            }),
          ),
        );
      } else if (frame.event === EVENT.helloOk) {
        live = true;
        pump();
      } else if (frame.event === EVENT.helloFail) {
        reject(new Error(`the hub refused the flooder: ${JSON.stringify(frame.payload)}`));
      } else if (frame.event === EVENT.ack) {
        acked++;
        if (acked === input.count) {
          ws.close();
          resolve({ acked, ms: Date.now() - t0 });
        } else pump();
      } else if (frame.event === EVENT.error) {
        reject(new Error(`the hub refused a flooded message: ${JSON.stringify(frame.payload)}`));
      }
    });
    ws.on('error', reject);
    ws.on('close', () => {
      if (acked < input.count) reject(new Error(`the hub closed the flooder after ${acked} acks`));
    });
  });
}
