import assert from 'node:assert/strict';
import { quoteValue } from '../../lib/quote-value';

describe('quoteValue', () => {
  it('shows what an object holds, not [object Object]', () => {
    assert.equal(quoteValue({ a: 1 }), '{"a":1}');
    assert.equal(quoteValue([1, 'x']), '[1,"x"]');
    assert.equal(quoteValue({ n: 2n }), '{"n":"2"}');
  });

  it('leaves strings and primitives as String writes them', () => {
    assert.equal(quoteValue('json'), 'json');
    assert.equal(quoteValue(undefined), 'undefined');
    assert.equal(quoteValue(null), 'null');
    assert.equal(quoteValue(3), '3');
    assert.equal(quoteValue(Symbol('s')), 'Symbol(s)');
  });

  it('cuts long JSON and survives a cycle', () => {
    assert.equal(quoteValue({ t: 'x'.repeat(200) }, 20), `{"t":"${'x'.repeat(13)}…`);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(quoteValue(cyclic), '[object Object]');
  });
});
