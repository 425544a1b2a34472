import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../gateway/load-config';
import { listEnvVariables } from '../../gateway/config/env-overrides';
import { GATEWAY_CONFIG_SCHEMA } from '../../gateway/gateway-config';
import { collectSecrets, redactConfig, REDACTED } from '../../gateway/config/redact';
import { GatewayError } from '../../gateway/errors';

function problems(fn: () => unknown): Array<{ path: string; problem: string }> {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
    return (err.details?.problems ?? []) as Array<{ path: string; problem: string }>;
  }
  assert.fail('expected the configuration to be refused');
}

describe('gateway config: loadConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fills every default from the schema when the file is empty', () => {
    const { config } = loadConfig({ text: '', env: {}, cwd: dir });
    assert.equal(config.mqtt.enabled, true);
    assert.equal(config.mqtt.url, 'mqtt://127.0.0.1:1883');
    assert.equal(config.mqtt.version, 'auto');
    assert.equal(config.mqtt.tls.reject_unauthorized, true);
    assert.equal(config.mqtt.homeassistant.discovery_prefix, 'homeassistant');
    assert.equal(config.http.host, '127.0.0.1');
    assert.equal(config.mesh.dedup_ttl_s, 3600);
    assert.deepEqual(config.radios, []);
    assert.equal(config.gateway.state_dir, path.join(dir, 'gateway-state'));
  });

  it('uses $STATE_DIRECTORY (systemd) when no state_dir is set', () => {
    const { config } = loadConfig({ text: '', env: { STATE_DIRECTORY: '/var/lib/clawling-gateway' }, cwd: dir });
    assert.equal(config.gateway.state_dir, '/var/lib/clawling-gateway');
  });

  it('resolves relative paths against the folder of the file', () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(path.join(dir, 'ca.pem'), 'x');
    fs.writeFileSync(file, 'gateway:\n  state_dir: state\nmqtt:\n  tls:\n    ca: ca.pem\n');
    const { config } = loadConfig({ file, env: {} });
    assert.equal(config.gateway.state_dir, path.join(dir, 'state'));
    assert.equal(config.mqtt.tls.ca, path.join(dir, 'ca.pem'));
  });

  it('reports every problem at once, each with its path', () => {
    const found = problems(() =>
      loadConfig({
        text: 'mqtt:\n  url: ftp://x\n  keepalive_s: -1\n  verison: 5\nhttp:\n  port: "eighty"\nradios:\n  - id: a\n    kind: laser\n',
        env: {},
      }),
    );
    const byPath = new Map(found.map((p) => [p.path, p.problem]));
    assert.match(byPath.get('mqtt.url') ?? '', /does not match/);
    assert.match(byPath.get('mqtt.keepalive_s') ?? '', />= 0/);
    assert.equal(byPath.get('mqtt.verison'), 'is not a known setting; did you mean version?');
    assert.match(byPath.get('http.port') ?? '', /must be integer/);
    assert.ok([...byPath.keys()].some((p) => p.startsWith('radios[0]')), `no radios[0] problem in ${JSON.stringify(found)}`);
  });

  it('refuses YAML that does not parse, naming the file', () => {
    assert.throws(() => loadConfig({ text: 'mqtt: [unclosed', env: {} }), (err: unknown) => err instanceof GatewayError && err.code === 'CONFIG_YAML');
  });

  it('shows a YAML mistake on its own line with a caret, also when the parser notices it later', () => {
    const yamlProblem = (text: string): { path: string; problem: string } => {
      try {
        loadConfig({ text, env: {} });
      } catch (err) {
        return ((err as GatewayError).details as { problems: Array<{ path: string; problem: string }> }).problems[0]!;
      }
      return assert.fail('expected CONFIG_YAML');
    };
    const head = 'gateway:\n  name: x\nmqtt:\n  url: mqtt://a\n  username: u\nhttp:\n  port: 8089\nradios:\n';
    const nested = yamlProblem(`${head}  - id: a kind: simulated\n`);
    assert.equal(nested.path, 'line 9, column 9');
    assert.equal(nested.problem, 'Nested mappings are not allowed in compact mappings\n        - id: a kind: simulated\n              ^');
    const quote = yamlProblem(`${head}  - id: 'a\n`);
    assert.equal(quote.path, 'line 9, column 9', 'the line that opened the quote, not the end of the file');
    assert.match(quote.problem, /^Missing closing 'quote\n {8}- id: 'a\n {14}\^$/);
    const bracket = yamlProblem(`${head}  - {id: a\nhttp2: 1\n`);
    assert.equal(bracket.path.split(',')[0], 'line 9');
    const tab = yamlProblem('mqtt:\n\turl: x\n');
    assert.equal(tab.path, 'line 2, column 1');
  });

  it('suggests the setting an unknown key was probably meant to be, and none for a stranger', () => {
    const found = problems(() => loadConfig({ text: 'mqtt:\n  usernme: u\n  pasword: p\nhttp:\n  colour: red\n', env: {} })).map((p) => `${p.path}: ${p.problem}`);
    assert.deepEqual(found, [
      'mqtt.usernme: is not a known setting; did you mean username?',
      'mqtt.pasword: is not a known setting; did you mean password?',
      'http.colour: is not a known setting',
    ]);
  });

  it('refuses a radio id used twice and a client certificate without its key', () => {
    fs.writeFileSync(path.join(dir, 'c.pem'), 'x');
    const found = problems(() =>
      loadConfig({
        text: `radios:\n  - {id: sim0, kind: simulated}\n  - {id: sim0, kind: simulated}\nmqtt:\n  tls:\n    cert: ${path.join(dir, 'c.pem')}\n`,
        env: {},
      }),
    );
    assert.deepEqual(
      found.map((p) => p.path).sort(),
      ['mqtt.tls.key', 'radios[1].id'],
    );
  });

  it('applies CLAWLING_* variables over the file, typed by the schema', () => {
    const { config, env } = loadConfig({
      text: 'mqtt:\n  url: mqtt://file:1883\n',
      env: {
        CLAWLING_MQTT_URL: 'mqtts://env:8883',
        CLAWLING_MQTT_BASE_TOPIC: 'site/a',
        CLAWLING_MQTT_KEEPALIVE_S: '15',
        CLAWLING_MQTT_VERSION: '4',
        CLAWLING_MQTT_HOMEASSISTANT_ENABLED: 'false',
        CLAWLING_MQTT_TLS_REJECT_UNAUTHORIZED: 'no',
        CLAWLING_HTTP_PORT: '9000',
        CLAWLING_RADIOS: '[{id: sim0, kind: simulated}]',
        CLAWLING_RADIOS_0_LATENCY_MS: '5',
        CLAWLING_MQTT_USERNAME: '',
        CLAWLING_NOPE: 'x',
        CLAWLING_CONFIG: '/etc/x.yaml',
      },
    });
    assert.equal(config.mqtt.url, 'mqtts://env:8883');
    assert.equal(config.mqtt.base_topic, 'site/a');
    assert.equal(config.mqtt.keepalive_s, 15);
    assert.equal(config.mqtt.version, 4);
    assert.equal(config.mqtt.homeassistant.enabled, false);
    assert.equal(config.mqtt.tls.reject_unauthorized, false);
    assert.equal(config.mqtt.username, null);
    assert.equal(config.http.port, 9000);
    assert.equal(config.radios[0]?.id, 'sim0');
    assert.equal((config.radios[0] as unknown as Record<string, unknown>).latency_ms, 5);
    assert.deepEqual(env.unknown, ['CLAWLING_NOPE']);
  });

  it("reaches any depth of a radio entry through the settings of that radio's kind", () => {
    const { config, env } = loadConfig({
      text: 'radios:\n  - {id: sim0, kind: simulated}\n  - {id: usb0, kind: serial, path: /dev/ttyUSB0}\n',
      env: {
        CLAWLING_RADIOS_0_PEERS_0_ID: 'porch',
        CLAWLING_RADIOS_0_PEERS_0_MTU: '185',
        CLAWLING_RADIOS_0_PEERS_0_TALK_EVERY_MS: '500',
        CLAWLING_RADIOS_1_MATCH_VENDOR_ID: '2341',
        CLAWLING_RADIOS_1_BAUD_RATE: '9600',
        // A radio added by the environment alone: its kind (a shorter name, so applied first) picks its settings.
        CLAWLING_RADIOS_2_ID: 'ble0',
        CLAWLING_RADIOS_2_KIND: 'ble',
        CLAWLING_RADIOS_2_PERIPHERAL_MAX_CLIENTS: '2',
        CLAWLING_RADIOS_0_PEERZ: 'typo',
        CLAWLING_RADIOS_1_PEERS_0_ID: 'not a serial setting',
      },
      cwd: dir,
    });
    type Entry = { kind?: string; peers?: unknown; baud_rate?: number; match?: { vendor_id?: unknown }; peripheral?: { max_clients?: number } };
    const radios = config.radios as unknown as Entry[];
    assert.deepEqual(radios[0]!.peers, [{ id: 'porch', mtu: 185, talk: { every_ms: 500 }, auto_ack: true }]);
    assert.equal(radios[1]!.match?.vendor_id, '2341', 'a string setting stays a string');
    assert.equal(radios[1]!.baud_rate, 9600);
    assert.equal(radios[2]!.kind, 'ble');
    assert.equal(radios[2]!.peripheral?.max_clients, 2);
    assert.deepEqual(env.unknown, ['CLAWLING_RADIOS_0_PEERZ', 'CLAWLING_RADIOS_1_PEERS_0_ID']);
  });

  it('names the variable when its value cannot have the setting type', () => {
    const found = problems(() => loadConfig({ text: '', env: { CLAWLING_HTTP_PORT: 'eighty' } }));
    assert.deepEqual(found, [{ path: 'http.port', problem: "CLAWLING_HTTP_PORT must be a number, got 'eighty'" }]);
  });

  it('reads the password from password_file and keeps it out of printed config', () => {
    const pw = path.join(dir, 'pw');
    fs.writeFileSync(pw, 's3cret-pass\nignored\n');
    const loaded = loadConfig({ text: `mqtt:\n  username: gw\n  password_file: ${pw}\n  tls:\n    key_passphrase: hush-hush\n`, env: {} });
    assert.equal(loaded.config.mqtt.password, 's3cret-pass');
    const shown = redactConfig(loaded.config, loaded.schema);
    assert.equal(shown.mqtt.password, REDACTED);
    assert.equal(shown.mqtt.tls.key_passphrase, REDACTED);
    assert.equal(shown.mqtt.username, 'gw');
    assert.equal(loaded.config.mqtt.password, 's3cret-pass', 'redaction must not touch the live config');
    assert.deepEqual(collectSecrets(loaded.config, loaded.schema).sort(), ['hush-hush', 's3cret-pass']);
  });

  it('redacts secret-looking keys in open sections too', () => {
    const loaded = loadConfig({ text: 'hub:\n  enabled: false\n  token: tok-123456\n', env: {} });
    assert.equal((redactConfig(loaded.config, loaded.schema).hub as Record<string, unknown>).token, REDACTED);
  });

  it('takes an extension schema for its section', () => {
    const schema = { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean', default: false }, url: { type: 'string', default: 'ws://x' } } };
    const { config } = loadConfig({ text: 'hub:\n  enabled: true\n', env: {}, extensionSchemas: { hub: schema } });
    assert.equal(config.hub.url, 'ws://x');
    const found = problems(() => loadConfig({ text: 'hub:\n  enabled: true\n  urll: y\n', env: {}, extensionSchemas: { hub: schema } }));
    assert.deepEqual(found, [{ path: 'hub.urll', problem: 'is not a known setting; did you mean url?' }]);
  });

  it('has no site by default, and checks the site settings and their variables', () => {
    assert.deepEqual(loadConfig({ text: '', env: {}, cwd: dir }).config.mqtt.site, { id: null, topic: null, share_group: null, v311_owner: false });
    const found = problems(() => loadConfig({ text: 'mqtt:\n  site:\n    id: my house\n    share_group: a/b\n    topic: "clawling/site/#"\n', env: {}, cwd: dir }));
    const paths = found.map((p) => p.path).sort();
    assert.deepEqual(paths, ['mqtt.site.id', 'mqtt.site.share_group', 'mqtt.site.topic']);
    const { config } = loadConfig({ text: '', env: { CLAWLING_MQTT_SITE_ID: 'home', CLAWLING_MQTT_SITE_V311_OWNER: 'true' }, cwd: dir });
    assert.equal(config.mqtt.site.id, 'home');
    assert.equal(config.mqtt.site.v311_owner, true);
  });

  it('lists one variable per setting', () => {
    const vars = listEnvVariables(GATEWAY_CONFIG_SCHEMA);
    assert.ok(vars.some((v) => v.variable === 'CLAWLING_MQTT_TLS_CA' && v.path === 'mqtt.tls.ca'));
    assert.ok(vars.some((v) => v.variable === 'CLAWLING_MQTT_HOMEASSISTANT_DISCOVERY_PREFIX'));
  });
});
