import assert from 'node:assert/strict';
import { addressFromHash } from '../../../lib/mesh/address';
import { composeMessage } from '../../../lib/mesh/composer';
import { INTERNAL_PREFIXES } from '../../../lib/mesh/control-prefixes';
import type { MeshMessage } from '../../../lib/mesh/message';
import { loadConfig } from '../../../gateway/load-config';
import { GatewayError } from '../../../gateway/errors';
import { reservedClassOf, SendPolicy, sharedSendPolicy, type SendPolicySettings } from '../../../gateway/mqtt/send-policy';
import { parseSendRequest } from '../../../gateway/mqtt/send-request';

const GW = addressFromHash(new Uint8Array(20).fill(1));
const NODE = addressFromHash(new Uint8Array(20).fill(2));
const OTHER = addressFromHash(new Uint8Array(20).fill(3));
/** NODE with its last character changed: the checksum fails. */
const TYPO = NODE.slice(0, -1) + (NODE.endsWith('q') ? 'p' : 'q');

/** The defaults exactly as the loader fills them from the schema. */
function defaults(overrides: Partial<SendPolicySettings> = {}): SendPolicySettings {
  return { ...loadConfig({ text: '', env: {} }).config.mqtt.send_policy, ...overrides };
}

function message(fields: Record<string, unknown> = {}): MeshMessage {
  return composeMessage({ sender: GW, recipient: NODE, app_id: 'home', content: 'lights off', ...fields });
}

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof GatewayError, String(err));
    return err.code;
  }
}

describe('gateway mqtt send policy', () => {
  it('is safe by default: protocol content refused, TTL capped at the mesh default, critical refused, a rate limit', () => {
    const s = defaults();
    assert.deepEqual(s, { app_ids: null, recipients: null, allow_reserved: [], max_ttl: 8, max_priority: 'high', rate_per_s: 2, burst: 10, requests: null });
    const p = new SendPolicy(s, () => 0);
    assert.equal(codeOf(() => p.check(message())), undefined);
    assert.equal(codeOf(() => p.check(message({ content: '__CONN_REQ__{"x":1}' }))), 'SEND_POLICY_RESERVED');
    assert.equal(codeOf(() => p.check(message({ content: '__MLS_ENC__AAAA' }))), 'SEND_POLICY_RESERVED');
    assert.equal(codeOf(() => p.check(message({ content: '', content_type: 'file_chunk', binary_content: [1, 2, 3] }))), 'SEND_POLICY_RESERVED');
    assert.equal(codeOf(() => p.check(message({ ttl: 9 }))), 'SEND_POLICY_TTL');
    assert.equal(codeOf(() => p.check(message({ ttl: 255 }))), 'SEND_POLICY_TTL');
    assert.equal(codeOf(() => p.check(message({ priority: 'critical' }))), 'SEND_POLICY_PRIORITY');
    assert.equal(codeOf(() => p.check(message({ priority: 'high', ttl: 8 }))), undefined);
  });

  it('classes every reserved prefix of lib/mesh as control or sealed, and text that merely mentions one as neither', () => {
    for (const prefix of INTERNAL_PREFIXES) {
      const c = reservedClassOf({ content: `${prefix}{}`, content_type: 'text' });
      assert.equal(c, prefix === '__MLS_ENC__' || prefix === '__GROUP_MSG__' ? 'sealed' : 'control', prefix);
    }
    assert.equal(reservedClassOf({ content: 'see __CONN_REQ__ in the docs', content_type: 'text' }), undefined);
    assert.equal(reservedClassOf({ content: '', content_type: 'file_chunk' }), 'file_chunk');
  });

  it('sends each reserved class only when allow_reserved lists it, and says which class it refused', () => {
    const p = new SendPolicy(defaults({ allow_reserved: ['sealed'] }), () => 0);
    assert.equal(codeOf(() => p.check(message({ content: '__MLS_ENC__AAAA' }))), undefined);
    try {
      p.check(message({ content: '__SVC_REQ__secret-body' }));
      assert.fail('refused');
    } catch (err) {
      assert.equal((err as GatewayError).code, 'SEND_POLICY_RESERVED');
      assert.deepEqual((err as GatewayError).details, { class: 'control' });
      assert.doesNotMatch((err as Error).message, /secret-body/);
    }
  });

  it('keeps to the listed app ids and recipients when lists are given', () => {
    const p = new SendPolicy(defaults({ app_ids: ['home'], recipients: [NODE] }), () => 0);
    assert.equal(codeOf(() => p.check(message())), undefined);
    assert.equal(codeOf(() => p.check(message({ app_id: 'other' }))), 'SEND_POLICY_APP_ID');
    assert.equal(codeOf(() => p.check(message({ recipient: OTHER }))), 'SEND_POLICY_RECIPIENT');
    // An empty list closes that door altogether.
    assert.equal(codeOf(() => new SendPolicy(defaults({ recipients: [] }), () => 0).check(message())), 'SEND_POLICY_RECIPIENT');
  });

  it('takes a burst, then rate_per_s, answers when to retry, and charges nothing for a refused request', () => {
    let now = 1000;
    const p = new SendPolicy(defaults({ rate_per_s: 2, burst: 3 }), () => now);
    for (let i = 0; i < 3; i += 1) assert.equal(codeOf(() => p.check(message())), undefined, `send ${i}`);
    try {
      p.check(message());
      assert.fail('limited');
    } catch (err) {
      assert.equal((err as GatewayError).code, 'SEND_RATE_LIMITED');
      assert.equal((err as GatewayError).details?.retryAfterMs, 500);
    }
    now += 250;
    assert.equal((() => {
      try {
        p.check(message());
      } catch (err) {
        return (err as GatewayError).details?.retryAfterMs;
      }
      return 0;
    })(), 250);
    now += 250;
    assert.equal(codeOf(() => p.check(message({ ttl: 99 }))), 'SEND_POLICY_TTL', 'refused before the bucket');
    assert.equal(codeOf(() => p.check(message())), undefined, 'the token the refused one did not take');
    assert.equal(codeOf(() => p.check(message())), 'SEND_RATE_LIMITED');
    // No limit at all.
    const open = new SendPolicy(defaults({ rate_per_s: null, burst: 1 }), () => 0);
    for (let i = 0; i < 50; i += 1) open.check(message());
  });

  it('is one policy per gateway connection, so both doors share one bucket', () => {
    const connection = {};
    const a = sharedSendPolicy(connection, defaults({ burst: 1 }), () => 0);
    const b = sharedSendPolicy(connection, defaults({ burst: 1 }), () => 0);
    assert.equal(a, b);
    a.check(message());
    assert.equal(codeOf(() => b.check(message())), 'SEND_RATE_LIMITED');
    assert.notEqual(sharedSendPolicy({}, defaults(), () => 0), a);
  });

  it('gives requests that name no TTL or priority the mesh defaults lowered to the caps', () => {
    assert.deepEqual(new SendPolicy(defaults(), () => 0).defaults, { ttl: 8, priority: 'medium' });
    const low = new SendPolicy(defaults({ max_ttl: 3, max_priority: 'low' }), () => 0);
    assert.deepEqual(low.defaults, { ttl: 3, priority: 'low' });
    const req = parseSendRequest(Buffer.from(JSON.stringify({ recipient: NODE, content: 'x' })), { address: GW, appId: 'gw', now: () => 0, defaults: low.defaults });
    assert.equal(req.message.ttl, 3);
    assert.equal(req.message.priority, 'low');
    low.check(req.message);
    assert.equal(codeOf(() => low.check(message({ ttl: 4 }))), 'SEND_POLICY_TTL');
  });

  it('is configured through the loader: schema, CLAWLING_* variables, and each listed recipient checked as an address', () => {
    const { config } = loadConfig({
      text: `mqtt:\n  send_policy:\n    recipients: [${NODE}]\n    max_priority: critical\n`,
      env: { CLAWLING_MQTT_SEND_POLICY_MAX_TTL: '3', CLAWLING_MQTT_SEND_POLICY_ALLOW_RESERVED: '[sealed, file_chunk]', CLAWLING_MQTT_SEND_POLICY_RATE_PER_S: 'null' },
    });
    assert.deepEqual(config.mqtt.send_policy, { app_ids: null, recipients: [NODE], allow_reserved: ['sealed', 'file_chunk'], max_ttl: 3, max_priority: 'critical', rate_per_s: null, burst: 10, requests: null });
    try {
      loadConfig({ text: `mqtt:\n  send_policy:\n    recipients: [${TYPO}]\n    allow_reserved: [everything]\n    max_priority: urgent\n    rate_per_s: 0\n`, env: {} });
      assert.fail('refused');
    } catch (err) {
      const paths = ((err as GatewayError).details?.problems as Array<{ path: string }>).map((p) => p.path).sort();
      assert.deepEqual(paths, ['mqtt.send_policy.allow_reserved[0]', 'mqtt.send_policy.max_priority', 'mqtt.send_policy.rate_per_s']);
    }
    try {
      loadConfig({ text: `mqtt:\n  send_policy:\n    recipients: [${NODE}, ${TYPO}]\n`, env: {} });
      assert.fail('refused');
    } catch (err) {
      assert.deepEqual(((err as GatewayError).details?.problems as Array<{ path: string }>).map((p) => p.path), ['mqtt.send_policy.recipients[1]']);
    }
  });
});
