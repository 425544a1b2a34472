/** The gateway page's rate history on a manual clock: per-second rates from running totals, bounded, live at once. */
import assert from 'node:assert/strict';
import { ManualClock } from '../../../../lib/clock';
import { RATE_STEP_MS, RateHistory } from '../../../../gateway/extensions/status/ui/rate-history';

describe('RateHistory', () => {
  it('turns running totals into rates per second, summed over labels, ending with the step in progress', () => {
    const clock = new ManualClock();
    const totals = { in: 0, sent: 0 };
    const h = new RateHistory(clock, () => ({
      clawling_gateway_messages_received_total: { 'radio=a': totals.in, 'radio=b': totals.in },
      clawling_gateway_messages_sent_total: totals.sent,
    }));
    h.start();
    const t0 = clock.now();
    assert.deepEqual(h.read().messages_in, [], 'no time has passed');
    totals.in = 50;
    clock.advance(RATE_STEP_MS);
    totals.sent = 5;
    clock.advance(RATE_STEP_MS / 2);
    const r = h.read();
    assert.deepEqual(r.messages_in, [
      [t0 + RATE_STEP_MS, 10],
      [t0 + 1.5 * RATE_STEP_MS, 0],
    ]);
    assert.deepEqual(r.messages_sent, [
      [t0 + RATE_STEP_MS, 0],
      [t0 + 1.5 * RATE_STEP_MS, 1],
    ]);
    assert.deepEqual(r.mqtt_published, [
      [t0 + RATE_STEP_MS, 0],
      [t0 + 1.5 * RATE_STEP_MS, 0],
    ]);
    h.stop();
    assert.equal(clock.pending(), 0, 'stop disarms the sampling timer');
  });

  it('keeps 15 minutes of steps however long it runs', () => {
    const clock = new ManualClock();
    let n = 0;
    const h = new RateHistory(clock, () => ({ clawling_gateway_messages_received_total: (n += 10) }));
    h.start();
    clock.advance(RATE_STEP_MS * 500);
    const points = h.read().messages_in!;
    assert.equal(points.length, 90);
    assert.equal(points[points.length - 1]![0], clock.now());
    h.stop();
  });
});
