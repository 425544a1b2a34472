import assert from 'node:assert/strict';
import { describeNativeLoadFailure, installingFolder, remedyCommand } from '../../../gateway/radios/native-module';

describe('gateway/radios native-module', () => {
  it('tells a Node.js upgrade (NODE_MODULE_VERSION) from a missing package and a missing build', () => {
    const abi = new Error(
      "The module '/opt/gw/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing",
    );
    const a = describeNativeLoadFailure(abi, 'better-sqlite3');
    assert.equal(a.kind, 'abi-mismatch');
    assert.match(a.reason, /NODE_MODULE_VERSION 127; this Node\.js v[\d.]+ needs 137/);
    assert.equal(remedyCommand(a, 'better-sqlite3', installingFolder(abi.message, 'better-sqlite3')!), 'cd /opt/gw && npm rebuild better-sqlite3');

    const missing = Object.assign(new Error("Cannot find module 'better-sqlite3'\nRequire stack:\n- /x.js"), { code: 'MODULE_NOT_FOUND' });
    const m = describeNativeLoadFailure(missing, 'better-sqlite3');
    assert.equal(m.kind, 'not-installed');
    assert.equal(remedyCommand(m, 'better-sqlite3', '/my app'), "cd '/my app' && npm install better-sqlite3");

    const noBuild = new Error('No native build was found for platform=linux arch=arm64 runtime=node abi=137 loaded from: /opt/gw/node_modules/@stoprocent/bluetooth-hci-socket');
    const n = describeNativeLoadFailure(noBuild, '@stoprocent/noble');
    assert.equal(n.kind, 'not-built');
    assert.equal(n.rebuildPackage, '@stoprocent/bluetooth-hci-socket');
    assert.equal(installingFolder(noBuild.message, n.rebuildPackage), '/opt/gw');
  });

  it('takes the innermost project that holds the package', () => {
    assert.equal(installingFolder('/a/node_modules/b/node_modules/better-sqlite3/lib/index.js', 'better-sqlite3'), '/a/node_modules/b');
    assert.equal(installingFolder('/a/node_modules/better-sqlite3-extra/x', 'better-sqlite3'), undefined);
  });
});
