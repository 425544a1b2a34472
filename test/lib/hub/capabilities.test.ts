import assert from 'node:assert/strict';
import { CAPABILITY_NAMES, capabilitiesFor, HubError } from '../../../lib/hub';

describe('capabilitiesFor', () => {
  it('advertises every capability but e2ee, with v2 always beside v1', () => {
    const caps = capabilitiesFor('v2');
    for (const name of CAPABILITY_NAMES) assert.equal(caps[name], name !== 'e2ee', name);
    assert.equal(capabilitiesFor('v1').reliable_delivery_v2, false);
    assert.equal(capabilitiesFor('v1').reliable_delivery, true);
    assert.equal(capabilitiesFor('legacy').reliable_delivery, false);
    assert.equal(capabilitiesFor('legacy').multi_device, true);
  });

  it('refuses e2ee, v2 without v1 and unknown reliability', () => {
    const refused = (e: unknown) => e instanceof HubError && e.code === 'BAD_OPTIONS';
    assert.throws(() => capabilitiesFor('v2', { e2ee: true }), refused);
    assert.throws(() => capabilitiesFor('v2', { reliable_delivery: false }), refused);
    assert.throws(() => capabilitiesFor('v3' as 'v2'), refused);
    assert.equal(capabilitiesFor('v2', { history_sync: false }).history_sync, false);
  });
});
