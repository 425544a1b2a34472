import assert from 'node:assert/strict';
import { assessHealth, type HealthInput } from '../../../../gateway/extensions/status/health';

const base: HealthInput = {
  phase: 'running',
  radios: [{ id: 'ble0', kind: 'ble', state: 'ready', peers: 0 }],
  mqtt: { enabled: true, connected: true },
  mqttDownSince: undefined,
  now: 1_000_000,
  mqttDownMs: 60_000,
};

describe('gateway/extensions assessHealth', () => {
  it('is 503 starting before the gateway has started, whatever the radios say', () => {
    assert.deepEqual(assessHealth({ ...base, phase: 'starting' }), { status: 'starting', http: 503, causes: [] });
  });

  it('counts degraded radios as usable and a gateway without radios as missing none', () => {
    assert.equal(assessHealth({ ...base, radios: [{ id: 'usb0', kind: 'serial', state: 'degraded', peers: 0 }] }).status, 'ok');
    assert.equal(assessHealth({ ...base, radios: [] }).status, 'ok');
    const all = assessHealth({ ...base, radios: [{ id: 'a', state: 'error', peers: 0 }, { id: 'b', state: 'unsupported', peers: 0, detail: 'no adapter' }] });
    assert.equal(all.http, 503);
    assert.match(all.causes[0]!.detail, /a error; b unsupported \(no adapter\)/);
  });

  it('counts an MQTT outage from its start and only past the limit', () => {
    const down = { ...base, mqtt: { enabled: true, connected: false } };
    assert.equal(assessHealth({ ...down, mqttDownSince: base.now - 59_999 }).status, 'ok');
    const over = assessHealth({ ...down, mqttDownSince: base.now - 60_000 });
    assert.deepEqual([over.status, over.causes.map((c) => c.code)], ['degraded', ['MQTT_DOWN']]);
    assert.equal(assessHealth({ ...down, mqtt: { enabled: false, connected: false }, mqttDownSince: 0 }).status, 'ok');
  });
});
