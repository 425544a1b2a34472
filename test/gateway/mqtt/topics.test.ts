import assert from 'node:assert/strict';
import { SiteTopics, Topics, topicLevel } from '../../../gateway/mqtt/topics';

describe('gateway mqtt topics', () => {
  it('keeps every id inside one topic level', () => {
    assert.equal(topicLevel('d4:3b:aa'), 'd4:3b:aa');
    assert.equal(topicLevel('a/b+c#d%e\u0000'), 'a%2Fb%2Bc%23d%25e%00');
    const t = new Topics('clawling/gw');
    assert.equal(t.peer('sim/0', 'p#1'), 'clawling/gw/radios/sim%2F0/peers/p%231');
    assert.equal(t.bridgeState, 'clawling/gw/bridge/state');
    assert.equal(t.raw('ble0'), 'clawling/gw/raw/ble0');
  });

  it('puts a site under clawling/site/<id> with the group clawling-<id>, and subscribes to it by protocol', () => {
    const t = SiteTopics.of({ id: 'home', topic: null, share_group: null });
    assert.equal(t.send, 'clawling/site/home/send');
    assert.equal(t.sendResult, 'clawling/site/home/send/result');
    assert.equal(t.gateway('pi/kitchen'), 'clawling/site/home/gateways/pi%2Fkitchen');
    assert.equal(t.share(t.send, false)(5), '$share/clawling-home/clawling/site/home/send');
    assert.equal(t.share(t.send, false)(4), undefined, 'MQTT 3.1.1 has no shared subscription: only the owner takes it');
    assert.equal(t.share(t.send, true)(4), 'clawling/site/home/send');
    const custom = SiteTopics.of({ id: 'farm', topic: 'farm/mesh', share_group: 'farm-gws' });
    assert.equal(custom.share(custom.send, false)(5), '$share/farm-gws/farm/mesh/send');
  });
});
