import assert from 'node:assert/strict';
import { ManualClock } from '../../lib/clock';
import { EventBus } from '../../gateway/bus';
import { silentLogger } from '../../gateway/logger';
import { assessHealth, HealthMonitor, type HealthInput } from '../../gateway/health';

const base: HealthInput = {
  phase: 'running',
  radios: [{ id: 'ble0', kind: 'ble', state: 'ready', peers: 0 }],
  mqtt: { enabled: true, connected: true },
  mqttDownSince: undefined,
  now: 1_000_000,
  mqttDownMs: 60_000,
  radioGraceMs: 30_000,
};

describe('gateway assessHealth', () => {
  it('is 503 starting before the gateway has started, whatever the radios say', () => {
    assert.deepEqual(assessHealth({ ...base, phase: 'starting' }), { status: 'starting', http: 503, causes: [] });
  });

  it('gives a radio that was ready and is reconnecting its grace, one that never was ready none, and misses nothing without radios', () => {
    const reconnecting = { id: 'usb0', kind: 'serial', state: 'degraded', peers: 0, wasReady: true, leftReadyAt: base.now - 29_999 };
    assert.equal(assessHealth({ ...base, radios: [reconnecting] }).status, 'ok');
    assert.equal(assessHealth({ ...base, radios: [{ ...reconnecting, leftReadyAt: base.now - 30_000 }] }).status, 'degraded');
    const never = assessHealth({ ...base, radios: [{ id: 'usb0', kind: 'serial', state: 'degraded', peers: 0, detail: 'ENOENT /dev/ttyX' }] });
    assert.deepEqual([never.status, never.http, never.causes.map((c) => c.code)], ['degraded', 503, ['RADIOS_UNUSABLE']]);
    assert.match(never.causes[0]!.detail, /usb0 degraded \(ENOENT \/dev\/ttyX\)/);
    assert.equal(assessHealth({ ...base, radios: [] }).status, 'ok');
    const all = assessHealth({ ...base, radios: [{ id: 'a', state: 'error', peers: 0 }, { id: 'b', state: 'unsupported', peers: 0, detail: 'no adapter' }] });
    assert.equal(all.http, 503);
    assert.match(all.causes[0]!.detail, /a error; b unsupported \(no adapter\)/);
    assert.equal(assessHealth({ ...base, radios: [{ id: 'a', state: 'error', peers: 0 }, { id: 'b', state: 'ready', peers: 0 }] }).status, 'ok');
  });

  it('counts an MQTT outage from its start and only past the limit', () => {
    const down = { ...base, mqtt: { enabled: true, connected: false } };
    assert.equal(assessHealth({ ...down, mqttDownSince: base.now - 59_999 }).status, 'ok');
    const over = assessHealth({ ...down, mqttDownSince: base.now - 60_000 });
    assert.deepEqual([over.status, over.causes.map((c) => c.code)], ['degraded', ['MQTT_DOWN']]);
    assert.equal(assessHealth({ ...down, mqtt: { enabled: false, connected: false }, mqttDownSince: 0 }).status, 'ok');
  });

  it('is degraded at once when the broker refused the credentials', () => {
    const refused = assessHealth({ ...base, mqtt: { enabled: true, connected: false, refused: 'Connection refused: Not authorized (code 5)' }, mqttDownSince: base.now });
    assert.deepEqual([refused.status, refused.causes.map((c) => c.code)], ['degraded', ['MQTT_REFUSED']]);
    assert.match(refused.causes[0]!.detail, /Not authorized/);
  });
});

describe('gateway HealthMonitor', () => {
  it('follows the phase and when each radio left ready, from the bus', () => {
    const clock = new ManualClock(1_000);
    const bus = new EventBus(silentLogger());
    const monitor = new HealthMonitor(clock, { mqttEnabled: false, mqttDownMs: 60_000, radioGraceMs: 10_000 });
    monitor.attach(bus);
    const radio = (state: string) => [{ id: 'usb0', state, peers: 0 }];
    const mqtt = { enabled: false, connected: false };
    assert.equal(monitor.assess(radio('ready'), mqtt).status, 'starting');
    bus.emit('started', { at: clock.now() });
    assert.equal(monitor.assess(radio('ready'), mqtt).status, 'ok');
    bus.emit('radioStatus', { radioId: 'usb0', state: 'degraded', peers: 0 });
    clock.advance(9_999);
    assert.equal(monitor.assess(radio('degraded'), mqtt).status, 'ok');
    clock.advance(1);
    assert.equal(monitor.assess(radio('degraded'), mqtt).status, 'degraded');
    bus.emit('stopping', { reason: 'test' });
    assert.equal(monitor.assess(radio('degraded'), mqtt).status, 'stopping');
  });
});
