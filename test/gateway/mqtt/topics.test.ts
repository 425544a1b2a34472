import assert from 'node:assert/strict';
import { Topics, topicLevel } from '../../../gateway/mqtt/topics';

describe('gateway mqtt topics', () => {
  it('keeps every id inside one topic level', () => {
    assert.equal(topicLevel('d4:3b:aa'), 'd4:3b:aa');
    assert.equal(topicLevel('a/b+c#d%e\u0000'), 'a%2Fb%2Bc%23d%25e%00');
    const t = new Topics('clawling/gw');
    assert.equal(t.peer('sim/0', 'p#1'), 'clawling/gw/radios/sim%2F0/peers/p%231');
    assert.equal(t.bridgeState, 'clawling/gw/bridge/state');
    assert.equal(t.raw('ble0'), 'clawling/gw/raw/ble0');
  });
});
