/**
 * The gateway page in Chromium against a real gateway with a simulated radio, connected with a user name and
 * password to an in-process aedes: health, the MQTT and hub connections, the radio with its counters, the outbox,
 * uptime and memory, and the effective configuration with the broker password and the auth token redacted (neither
 * reaches the page), with charts of the message rates. When the broker goes away, the page shows the `/health` cause.
 */
import assert from 'node:assert/strict';
import { startBroker, type TestBroker } from '../gateway/support/broker';
import { openUiSession, RADIO, type UiSession } from './support/ui-session';

const TOKEN = 'gateway-page-token-0123456789';
const PASSWORD = 'broker-password-never-shown';
const WARNING = 'CLAWLING_MQTT_USERNAM names no setting and is ignored';

describe('web UI: gateway page in Chromium', function () {
  this.timeout(120000);
  let broker: TestBroker;
  let s: UiSession;

  before(async () => {
    broker = await startBroker(0, { credentials: { username: 'gw', password: PASSWORD } });
    s = await openUiSession('webui-gateway-', {
      radios: [{ id: RADIO, kind: 'simulated', peers: [{ id: 'alice' }] }],
      mqtt: { enabled: true, url: broker.url, username: 'gw', password: PASSWORD },
      http: { enabled: true, port: 0, auth_token: TOKEN, health_mqtt_down_ms: 0 },
    }, { configWarnings: [WARNING] });
    await s.radio.virtualPeer('alice')!.say('hello');
    await s.page.goto(s.url('ui/gateway'));
  });

  after(async () => {
    await s?.close();
    await broker?.stop();
  });

  it('shows health, connections, the radio with its counters, the outbox, uptime and memory', async () => {
    await s.page.locator('#health-status', { hasText: /^ok$/ }).waitFor();
    assert.equal(await s.page.locator('#health-causes').innerText(), 'no problem');
    // What --check would print for this configuration: the environment variable that names no setting, nothing else.
    assert.deepEqual(await s.page.locator('#check li').allInnerTexts(), [`environment: ${WARNING}`]);
    const mqtt = await s.page.locator('#connections tr').first().locator('td').allInnerTexts();
    assert.equal(mqtt[0], 'MQTT');
    assert.match(mqtt[1]!, /^connected \(MQTT (5|3\.1\.1)\) to mqtt:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await s.page.locator('#connections tr').nth(1).locator('td').allInnerTexts(), ['Message Hub', 'disabled']);
    const radio = s.page.locator(`#radios tr[data-radio="${RADIO}"] td`);
    await s.page.locator(`#radios tr[data-radio="${RADIO}"] td`, { hasText: 'messages_received_total 1' }).waitFor();
    const cells = await radio.allInnerTexts();
    assert.deepEqual(cells.slice(0, 3), [RADIO, 'simulated', 'ready']);
    assert.match((await s.page.locator('#queues').innerText()).trim(), /^mqtt\t\d+\t\d+\t0$/m);
    // Alice's message is the only one since start, so the rate of messages in is above zero and nothing was rejected.
    const latest = (await s.page.locator('#rates svg[data-key="messages_in"] text.latest').textContent()) ?? '';
    assert.ok(Number(/^messages_in ([\d.]+)$/.exec(latest)?.[1]) > 0, latest);
    assert.equal(await s.page.locator('#rates svg[data-key="rejected"] text.latest').textContent(), 'rejected 0');
    assert.match(await s.page.locator('#gw-meta').innerText(), /^id gw-test · address off1\S+ · version \S+ · up .+ · RSS \d+\.\d MiB · heap \d+\.\d MiB · [\d.]+ msg\/s$/);
    assert.deepEqual(s.problems, []);
  });

  it('shows the effective configuration with every secret redacted, and no secret anywhere on the page', async () => {
    const config = JSON.parse(await s.page.locator('#config').innerText()) as { mqtt: { username: string; password: string; url: string }; http: { auth_token: string } };
    assert.equal(config.mqtt.username, 'gw');
    assert.equal(config.mqtt.password, '[redacted]');
    assert.equal(config.http.auth_token, '[redacted]');
    assert.equal(config.mqtt.url, broker.url);
    const everything = await s.page.content();
    assert.ok(!everything.includes(PASSWORD), 'the broker password reached the page');
    assert.ok(!everything.includes(TOKEN), 'the auth token reached the page');
  });

  it('shows the /health cause once the broker is gone', async () => {
    await broker.stop();
    await s.page.locator('#health-status', { hasText: 'degraded' }).waitFor();
    assert.match(await s.page.locator('#health-causes').innerText(), /^MQTT_DOWN: /);
    assert.match(await s.page.locator('#connections tr').first().innerText(), /disconnected/);
    assert.deepEqual(s.problems, []);
  });
});
