import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfigApart } from '../../gateway/read-apart';
import { readGatewayConfig } from '../../gateway/read-config';
import { GatewayError } from '../../gateway/errors';
import { execFileSync } from 'node:child_process';

/** The error a read ends with, or a failure when it succeeds. */
async function refusal(read: Promise<unknown>): Promise<GatewayError> {
  try {
    await read;
  } catch (err) {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the configuration to be refused');
}

describe('gateway config: read in a child process (read-apart)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-apart-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers with the configuration read in place, environment overrides and defaults included', async () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, 'gateway:\n  id: apart\nradios:\n  - { id: sim0, kind: simulated }\n');
    const env = { CLAWLING_MQTT_URL: 'mqtt://broker.example:1884', CLAWLING_NO_SUCH_SETTING: 'x', STATE_DIRECTORY: path.join(dir, 'state') };
    const apart = await readConfigApart(file, env);
    const inPlace = await readGatewayConfig(file, env);
    assert.equal(apart.config.mqtt.url, 'mqtt://broker.example:1884');
    assert.equal(apart.config.gateway.state_dir, path.join(dir, 'state'));
    assert.deepEqual(apart.config, inPlace.config);
    assert.deepEqual(apart.schema, inPlace.schema);
    assert.deepEqual(apart.env, inPlace.env);
    assert.equal(apart.file, file);
  });

  it('ends with the same GatewayError as reading in place: YAML caret message, unknown-key suggestion', async () => {
    const broken = path.join(dir, 'broken.yaml');
    fs.writeFileSync(broken, 'gateway:\n  id: [unclosed\nradios: []\n');
    const yamlApart = await refusal(readConfigApart(broken, {}));
    const yamlInPlace = await refusal(readGatewayConfig(broken, {}));
    assert.equal(yamlApart.code, 'CONFIG_YAML');
    assert.equal(yamlApart.message, yamlInPlace.message);
    assert.deepEqual(yamlApart.details, yamlInPlace.details);

    const misspelt = path.join(dir, 'misspelt.yaml');
    fs.writeFileSync(misspelt, 'mqtt:\n  urll: mqtt://127.0.0.1\n');
    const keyApart = await refusal(readConfigApart(misspelt, {}));
    const keyInPlace = await refusal(readGatewayConfig(misspelt, {}));
    assert.equal(keyApart.code, 'CONFIG_INVALID');
    assert.match(keyApart.message, /mqtt\.urll/);
    assert.equal(keyApart.message, keyInPlace.message);
    assert.deepEqual(keyApart.details, keyInPlace.details);
  });

  it('leaves yaml and Ajv out of the reading process: the point of reading apart', () => {
    const file = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(file, 'radios:\n  - { id: sim0, kind: simulated }\n');
    const apart = require.resolve('../../gateway/read-apart');
    const script = `require(${JSON.stringify(apart)}).readConfigApart(${JSON.stringify(file)}, {}).then((l) => {
      const loaded = Object.keys(require.cache).filter((k) => /node_modules\\/(yaml|ajv)\\//.test(k)).length;
      process.stdout.write(JSON.stringify({ radios: l.config.radios.length, loaded }));
    })`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { radios: number; loaded: number };
    assert.deepEqual(out, { radios: 1, loaded: 0 });
  });

  it('names a file that cannot be read, as in place', async () => {
    const missing = path.join(dir, 'missing.yaml');
    const apart = await refusal(readConfigApart(missing, {}));
    assert.equal(apart.code, 'CONFIG_READ');
    assert.equal(apart.message, (await refusal(readGatewayConfig(missing, {}))).message);
  });
});
