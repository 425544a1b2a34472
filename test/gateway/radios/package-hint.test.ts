import assert from 'node:assert/strict';
import { packageHint } from '../../../gateway/radios/package-hint';

describe('gateway/radios packageHint', () => {
  it('says install for a package that is absent and rebuild, in its folder, for one built for another Node.js', () => {
    const absent = Object.assign(new Error("Cannot find module '@stoprocent/noble'"), { code: 'MODULE_NOT_FOUND' });
    assert.match(packageHint('@stoprocent/noble', absent), /^the optional package @stoprocent\/noble is not installed; install it with: cd \S+ && npm install @stoprocent\/noble$/);
    const abi = new Error(
      "The module '/opt/gw/node_modules/@stoprocent/bluetooth-hci-socket/prebuilds/linux-arm64/node.napi.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127. This version of Node.js requires NODE_MODULE_VERSION 137.",
    );
    assert.match(packageHint('@stoprocent/noble', abi), /NODE_MODULE_VERSION 127.*; rebuild it with: cd \/opt\/gw && npm rebuild @stoprocent\/bluetooth-hci-socket$/);
  });

  it('gives no command for a failure that is not about loading', () => {
    const hint = packageHint('@stoprocent/noble', new Error('Address family not supported by protocol'));
    assert.equal(hint, 'the optional package @stoprocent/noble is not usable here: it does not load: Address family not supported by protocol');
  });
});
