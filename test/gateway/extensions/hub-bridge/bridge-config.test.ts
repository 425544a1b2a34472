import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../../../gateway/load-config';
import { redactConfig } from '../../../../gateway/config/redact';
import { HUB_CONFIG_SCHEMA } from '../../../../gateway/extensions/hub-bridge/config-schema';
import { mediaBaseFor, resolveBridgeConfig } from '../../../../gateway/extensions/hub-bridge/bridge-config';
import { readHubSettings } from '../../../../gateway/extensions/hub-bridge/read-settings';
import { checkConfig, configSchema } from '../../../../gateway/extensions/hub-bridge';

const SECRET = 'hub-secret-token-5c7e';

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    return ((err as { details?: { problems?: Array<string | { path: string; problem: string }> } }).details?.problems ?? []).map((p) =>
      typeof p === 'string' ? p : `${p.path}: ${p.problem}`,
    );
  }
  assert.fail('expected a refusal');
}

describe('gateway/hub configuration', () => {
  it('is the schema the extension exports, with every default filled in', () => {
    assert.equal(configSchema, HUB_CONFIG_SCHEMA);
    const s = readHubSettings({ enabled: true });
    assert.equal(s.url, 'ws://127.0.0.1:8080/ws');
    assert.equal(s.reliability, 'v2');
    assert.deepEqual(s.files, { max_upload_bytes: 16777216, max_fetch_bytes: 1048576, fetch_timeout_ms: 30000, fetch_deadline_ms: 120000, chunk_profile: 'ble' });
    assert.equal(s.to_mesh.max_attempts, 10);
    const r = readHubSettings({ mesh_to_hub: [{ chat_id: 'cnv_1' }] });
    assert.deepEqual(r.mesh_to_hub, [{ chat_id: 'cnv_1', app_id: null, recipient: 'gateway', sender: null, label: 'name', unverified: 'mark' }]);
  });

  it('names the path of every problem at once', () => {
    const found = problems(() => readHubSettings({ url: 'http://x', mesh_to_hub: [{ app_id: 3 }], nope: 1 }));
    assert.ok(found.some((p) => p.startsWith('hub.url:')), found.join('\n'));
    assert.ok(found.some((p) => p === 'hub.mesh_to_hub[0].chat_id: is required'), found.join('\n'));
    assert.ok(found.some((p) => p.startsWith('hub.mesh_to_hub[0].app_id')), found.join('\n'));
    assert.ok(found.some((p) => p === 'hub.nope: is not a known setting'), found.join('\n'));
  });

  it('requires a token and a user, checks identifiers and never quotes the token', () => {
    const found = problems(() => resolveBridgeConfig(readHubSettings({ hub_to_mesh: [{ chat_id: 'c', recipient: 'a/b' }, { chat_id: 'c', replies_to_sender: false }] }), 'gw'));
    assert.deepEqual(found, [
      'hub.token: is required (or hub.token_file, or the CLAWLING_HUB_TOKEN variable)',
      'hub.user_id: is required (the hub user id of the bridge account)',
      'hub.hub_to_mesh[0].recipient: is not a valid mesh identifier (forbidden_char)',
      'hub.hub_to_mesh[1].recipient: is required when replies_to_sender is false (nothing could be sent)',
    ]);
    const err = (() => {
      try {
        resolveBridgeConfig(readHubSettings({ token: SECRET, user_id: 'agt_x', mesh_to_hub: [{ chat_id: 'c', recipient: '..' }] }), 'gw');
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    assert.ok(err && !err.message.includes(SECRET) && !JSON.stringify(err).includes(SECRET));
  });

  it('reads the token from a file, and derives the media base from the WebSocket URL', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-token-'));
    try {
      fs.writeFileSync(path.join(dir, 'token'), `${SECRET}\n`);
      const cfg = resolveBridgeConfig(readHubSettings({ url: 'wss://hub.example:8443/ws', token_file: 'token', user_id: 'agt_x' }), 'gw', dir);
      assert.equal(cfg.token, SECRET);
      assert.equal(cfg.mediaUrl, 'https://hub.example:8443');
      assert.equal(cfg.hubToMesh.length, 0);
      assert.deepEqual(problems(() => resolveBridgeConfig(readHubSettings({ token_file: 'missing', user_id: 'agt_x' }), 'gw', dir)), ['hub.token_file: cannot be read (ENOENT)']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(mediaBaseFor('ws://127.0.0.1:9/ws'), 'http://127.0.0.1:9');
  });

  it('plugs into the gateway loader: CLAWLING_HUB_TOKEN sets the token, and printing the config hides it', () => {
    const loaded = loadConfig({
      text: YAML.stringify({ hub: { enabled: true, user_id: 'agt_x', mesh_to_hub: [{ chat_id: 'cnv_1' }] } }),
      env: { CLAWLING_HUB_TOKEN: SECRET, CLAWLING_HUB_TO_MESH_CONCURRENCY: '3' },
      extensionSchemas: { hub: configSchema },
      cwd: os.tmpdir(),
    });
    const hub = loaded.config.hub as unknown as { token: string; to_mesh: { concurrency: number }; files: { chunk_profile: string } };
    assert.equal(hub.token, SECRET);
    assert.equal(hub.to_mesh.concurrency, 3);
    assert.equal(hub.files.chunk_profile, 'ble', 'defaults filled by the loader');
    const printed = JSON.stringify(redactConfig(loaded.config, loaded.schema));
    assert.ok(!printed.includes(SECRET));
    assert.ok(printed.includes('"token":"[redacted]"'));
  });

  it('gives --check the problems of an enabled bridge by path, and none for a disabled one', () => {
    const load = (hub: Record<string, unknown>) => loadConfig({ text: YAML.stringify({ hub }), env: {}, extensionSchemas: { hub: configSchema }, cwd: os.tmpdir() }).config;
    assert.deepEqual(checkConfig(load({ enabled: false })), []);
    assert.deepEqual(checkConfig(load({ enabled: true, token: SECRET })), [{ path: 'hub.user_id', problem: 'is required (the hub user id of the bridge account)' }]);
    assert.deepEqual(checkConfig(load({ enabled: true, token: SECRET, user_id: 'agt_x' })), []);
  });

  it("reports an enabled bridge's problems with every other problem when the config is loaded", () => {
    const load = () => loadConfig({ text: YAML.stringify({ hub: { enabled: true } }), env: {}, extensionSchemas: { hub: configSchema }, extensionChecks: [checkConfig], cwd: os.tmpdir() });
    assert.throws(load, (err: unknown) => {
      const problems = (err as { code?: string; details?: { problems?: unknown } }).details?.problems;
      assert.equal((err as { code?: string }).code, 'CONFIG_INVALID');
      assert.deepEqual(problems, [
        { path: 'hub.token', problem: 'is required (or hub.token_file, or the CLAWLING_HUB_TOKEN variable)' },
        { path: 'hub.user_id', problem: 'is required (the hub user id of the bridge account)' },
      ]);
      return true;
    });
  });
});
