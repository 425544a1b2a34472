import assert from 'node:assert/strict';
import { Metrics } from '../../gateway/metrics';

describe('gateway metrics', () => {
  it('renders counters and gauges in the Prometheus text format', () => {
    const m = new Metrics();
    const c = m.counter('x_total', 'Things.\nTwo lines.');
    c.inc();
    c.inc({ radio: 'a"b\\c' }, 2);
    m.gauge('depth', 'Queue depth.', () => [{ labels: { queue: 'mqtt' }, value: 7 }]);
    m.gauge('up', 'Up.').set(1);
    assert.equal(
      m.renderPrometheus(),
      [
        '# HELP x_total Things.\\nTwo lines.',
        '# TYPE x_total counter',
        'x_total 1',
        'x_total{radio="a\\"b\\\\c"} 2',
        '# HELP depth Queue depth.',
        '# TYPE depth gauge',
        'depth{queue="mqtt"} 7',
        '# HELP up Up.',
        '# TYPE up gauge',
        'up 1',
        '',
      ].join('\n'),
    );
    assert.equal(c.total(), 3);
  });

  it('exports an untouched counter as 0 and refuses bad names and type clashes', () => {
    const m = new Metrics();
    m.counter('never_total', 'Never.');
    assert.match(m.renderPrometheus(), /^never_total 0$/m);
    assert.throws(() => m.counter('bad-name', 'x'));
    assert.throws(() => m.gauge('never_total', 'x'));
  });

  it('gives a snapshot for the health topic', () => {
    const m = new Metrics();
    m.counter('a_total', 'A.').inc();
    m.counter('b_total', 'B.').inc({ reason: 'X' }, 4);
    assert.deepEqual(m.snapshot(), { a_total: 1, b_total: { 'reason=X': 4 } });
  });
});
