import assert from 'node:assert/strict';
import { describeNativeLoadFailure, installingFolder, remedyCommand } from '../../../gateway/radios/native-module';

describe('gateway/radios native-module', () => {
  it('tells a Node.js upgrade (NODE_MODULE_VERSION) from a missing package and a missing build', () => {
    const abi = new Error(
      "The module '/opt/gw/node_modules/@stoprocent/bleno/build/Release/bleno.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing",
    );
    const a = describeNativeLoadFailure(abi, '@stoprocent/bleno');
    assert.equal(a.kind, 'abi-mismatch');
    assert.match(a.reason, /NODE_MODULE_VERSION 127; this Node\.js v[\d.]+ needs 137/);
    assert.equal(remedyCommand(a, '@stoprocent/bleno', installingFolder(abi.message, '@stoprocent/bleno')!), 'cd /opt/gw && npm rebuild @stoprocent/bleno');

    const missing = Object.assign(new Error("Cannot find module 'serialport'\nRequire stack:\n- /x.js"), { code: 'MODULE_NOT_FOUND' });
    const m = describeNativeLoadFailure(missing, 'serialport');
    assert.equal(m.kind, 'not-installed');
    assert.equal(remedyCommand(m, 'serialport', '/my app'), "cd '/my app' && npm install serialport");

    const noBuild = new Error('No native build was found for platform=linux arch=arm64 runtime=node abi=137 loaded from: /opt/gw/node_modules/@stoprocent/bluetooth-hci-socket');
    const n = describeNativeLoadFailure(noBuild, '@stoprocent/noble');
    assert.equal(n.kind, 'not-built');
    assert.equal(n.rebuildPackage, '@stoprocent/bluetooth-hci-socket');
    assert.equal(installingFolder(noBuild.message, n.rebuildPackage), '/opt/gw');
  });

  it('takes the innermost project that holds the package', () => {
    assert.equal(installingFolder('/a/node_modules/b/node_modules/@stoprocent/noble/lib/index.js', '@stoprocent/noble'), '/a/node_modules/b');
    assert.equal(installingFolder('/a/node_modules/@stoprocent/noble-extra/x', '@stoprocent/noble'), undefined);
  });
});
