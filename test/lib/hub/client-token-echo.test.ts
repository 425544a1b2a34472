/**
 * A hub that echoes the token it was shown (the dev hub's echo-token fault, or a raw frame quoting it): the client
 * cuts its own token out of every text the hub supplies before any of it surfaces, in the status and its reason,
 * warnings, the logger, frame events, `rejected` events and the error a send rejects with.
 */
import assert from 'node:assert/strict';
import type { HubLogger, HubStatus } from '../../../lib/hub';
import { ALICE, CHAT, collect, eventually, Harness, next, uplinks } from './support/harness';

function recordingLogger(): { logger: HubLogger; lines: unknown[] } {
  const lines: unknown[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('HubClient: a hub that echoes the token', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  for (const via of ['hello-fail', 'close'] as const) {
    it(`redacts the token from a refusal that quotes it (via ${via}) and connects on the next attempt`, async () => {
      h.hub.admin.echoToken({ count: 1, via });
      const { logger, lines } = recordingLogger();
      const alice = h.client(ALICE, { logger });
      const states = collect(alice, 'state');
      const warnings = collect(alice, 'warning');
      await h.connected(alice);
      const backoff = states.find((s): s is HubStatus => s.state === 'backoff');
      assert.ok(backoff, 'one refused attempt, then a backoff');
      assert.equal(backoff.reason, 'invalid token: Bearer [redacted]');
      assert.equal(backoff.cause, via === 'hello-fail' ? 'hello-fail' : 'no-hello');
      const surfaced = JSON.stringify({ states, warnings: warnings.map((w) => ({ message: w.message, details: w.details })), lines });
      assert.ok(surfaced.includes('Bearer [redacted]'), 'the logger saw the redacted reason');
      assert.ok(!surfaced.includes(ALICE.token), 'the token surfaces nowhere');
    });
  }

  it('redacts the token from frame events, rejected events and the error a send rejects with', async () => {
    const { logger, lines } = recordingLogger();
    const alice = await h.connected(h.client(ALICE, { logger }));
    const frames = collect(alice, 'frame');
    const rejected = collect(alice, 'rejected');
    h.hub.admin.sendRaw({ user_id: ALICE.id }, { version: '2', event: 'future.event', trace_id: 'f', emitted_at: 1, payload: { note: `seen: Bearer ${ALICE.token}` } });
    await eventually(() => frames.some((f) => f.event === 'future.event'), 5000, 'the raw frame');

    h.hub.admin.withholdAcks({ user_id: ALICE.id, count: 1 });
    const sent = alice.send({ chatId: CHAT, text: 'refuse me' }).then(
      () => assert.fail('the send should be refused'),
      (err: Error & { details?: unknown }) => err,
    );
    await eventually(() => uplinks(h, ALICE.id, 'message.send').length === 1, 5000, 'the send at the hub');
    const [up] = uplinks(h, ALICE.id, 'message.send');
    const refusal = next(alice, 'rejected');
    h.hub.admin.sendRaw(
      { user_id: ALICE.id },
      { version: '2', event: 'message.error', trace_id: up.trace_id, emitted_at: 1, chat_id: CHAT, payload: { message_id: up.payload.message_id, code: 'unauthorized', reason: `invalid token: Bearer ${ALICE.token}` } },
    );
    const err = await sent;
    await refusal;
    assert.match(err.message, /unauthorized \(invalid token: Bearer \[redacted\]\)/);
    const surfaced = JSON.stringify({ frames, rejected, err: { message: err.message, details: err.details }, lines });
    assert.ok(surfaced.includes('seen: Bearer [redacted]'));
    assert.ok(!surfaced.includes(ALICE.token), 'the token surfaces nowhere');
  });
});
