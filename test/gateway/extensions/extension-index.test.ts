import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { EXTENSIONS, loadExtensionModule, loadExtensionSections } from '../../../gateway/extensions/index';

describe('gateway extension table', () => {
  it("takes the hub section's schema and check from its index, the same ones the extension exports", async () => {
    const { extensionSchemas: schemas, extensionChecks } = await loadExtensionSections();
    const entry = EXTENSIONS.find((e) => e.name === 'hub-bridge')!;
    const mod = await loadExtensionModule(entry);
    assert.ok(schemas.hub, 'the hub section has a schema');
    assert.equal(schemas.hub, mod?.configSchema);
    assert.ok(mod?.checkConfig !== undefined && extensionChecks.includes(mod.checkConfig), "the hub bridge's check is among the loader's");
  });

  it('does not load the hub bridge (nor the hub client, nor ws) to validate a config that leaves it off', () => {
    const index = path.resolve(__dirname, '../../../gateway/extensions/index');
    const script = `require(${JSON.stringify(index)}).loadExtensionSections().then(({ extensionSchemas: s }) => {
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify({ hub: !!s.hub, bridge: loaded.some((f) => f.endsWith('hub-bridge.js')), client: loaded.some((f) => /lib[\\\\/]hub[\\\\/]client\\.js$/.test(f)), ws: loaded.some((f) => /node_modules[\\\\/]ws[\\\\/]/.test(f)) }));
    });`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Record<string, boolean>;
    assert.deepEqual(out, { hub: true, bridge: false, client: false, ws: false });
  });
});
