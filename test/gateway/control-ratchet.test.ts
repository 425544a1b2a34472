import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkControlGate } from '../../lib/mesh/control-gate';
import { generateControlIdentity, signControlMessage } from '../../lib/mesh/control-signature';
import { createMessage } from '../../lib/mesh/message';
import { MessageId } from '../../lib/mesh/message-id';
import { openStore } from '../../lib/store';
import { StoredControlRatchet } from '../../gateway/control-ratchet';

describe('gateway StoredControlRatchet', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a sender proven on v2 stays proven after the store is closed and opened again: its v1 control frames stay refused', () => {
    const alice = generateControlIdentity();
    const frame = (version: 1 | 2) =>
      signControlMessage(
        createMessage({ id: MessageId.random(), sender: alice.address, recipient: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf', app_id: 'app', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1700000000000n, content: '__CONN_REQ__{}' }),
        alice.privateKey,
        version,
      );
    const file = path.join(dir, 'gateway.db');
    const first = openStore(file);
    assert.equal(checkControlGate(frame(2), { transport: 'ble', ratchet: new StoredControlRatchet(first.kv) }).accepted, true);
    first.close();

    const second = openStore(file);
    const ratchet = new StoredControlRatchet(second.kv);
    assert.equal(ratchet.provenV2(alice.address), true);
    const result = checkControlGate(frame(1), { transport: 'ble', ratchet });
    assert.equal(!result.accepted && result.reason, 'CONTROL_DOWNGRADE');
    assert.equal(ratchet.provenV2(generateControlIdentity().address), false);
    second.close();
  });
});
