import assert from 'node:assert/strict';
import { useHub, type Frame, type TestClient } from './support';

const SYNC = { history_sync: true };

function transit(client: TestClient, target: string | undefined, extra: Record<string, unknown> = {}): Frame {
  const frame = {
    version: '2',
    event: 'history.transit',
    trace_id: 'hist-1',
    emitted_at: 1776162700400,
    ...(target !== undefined ? { target_device_id: target } : {}),
    sender: { id: 'usr_a', type: 'user' },
    origin_device_id: 'old',
    payload: { kind: 'history_sync_message', opaque: { anything: [1, 2] } },
    ciphertext_fragments: [{ device_id: target, type: 'msg', ciphertext: 'AAAA' }],
    ...extra,
  };
  client.send(frame);
  return frame;
}

describe('devhub history.transit (§11.4)', () => {
  const f = useHub();

  it('reaches only the target sibling, as written, with the client sender and without origin_device_id', async () => {
    const old = await f.login('ta', { device_id: 'old', capabilities: SYNC });
    const target = await f.login('ta', { device_id: 'new', capabilities: SYNC });
    const bystander = await f.login('ta', { device_id: 'other', capabilities: SYNC });
    const bob = await f.login('tb', { capabilities: SYNC });
    const sent = transit(old, 'new');
    const got = await target.event('history.transit');
    assert.deepEqual(got.sender, { id: 'usr_a', type: 'user' });
    assert.equal('origin_device_id' in got, false);
    assert.deepEqual(got.payload, sent.payload);
    assert.deepEqual(got.ciphertext_fragments, sent.ciphertext_fragments);
    assert.equal(got.target_device_id, 'new');
    assert.equal(got.emitted_at, sent.emitted_at);
    assert.deepEqual(await bystander.barrier(), []);
    assert.deepEqual(await bob.barrier(), []);
    assert.deepEqual(await old.barrier(), [], 'no ack');
  });

  it('waits in the inbox for an offline target, and is deleted once delivered (legacy)', async () => {
    const old = await f.login('ta', { device_id: 'old', capabilities: SYNC });
    transit(old, 'new');
    await old.barrier();
    assert.equal(f.hub().admin.inbox('usr_a').length, 1);
    const target = await f.login('ta', { device_id: 'new', capabilities: SYNC });
    assert.deepEqual(target.replay.map((fr) => fr.event), ['history.transit', 'replay.done']);
    await target.barrier();
    assert.deepEqual(f.hub().admin.inbox('usr_a'), []);
  });

  it('is delete-on-ack on v2: the row stays until its dseq is acked', async () => {
    const old = await f.login('ta', { device_id: 'old', capabilities: SYNC });
    transit(old, 'new');
    await old.barrier();
    const target = await f.login('ta', { device_id: 'new', capabilities: { ...SYNC, reliable_delivery: true, reliable_delivery_v2: true }, autoAck: false });
    const frame = target.replay[0];
    assert.equal(frame.event, 'history.transit');
    assert.equal(f.hub().admin.inbox('usr_a').length, 1);
    target.ackDseq(frame);
    await target.barrier();
    assert.deepEqual(f.hub().admin.inbox('usr_a'), []);
  });

  it('lets a non-target sibling advance past the row without deleting it', async () => {
    const old = await f.login('ta', { device_id: 'old', capabilities: SYNC });
    transit(old, 'new');
    await old.barrier();
    const other = await f.login('ta', { device_id: 'other', capabilities: SYNC });
    assert.deepEqual(other.replay.map((fr) => fr.event), ['replay.done']);
    assert.equal(f.hub().admin.inbox('usr_a').length, 1);
  });

  it('drops a transit without target_device_id silently', async () => {
    const old = await f.login('ta', { device_id: 'old', capabilities: SYNC });
    transit(old, undefined);
    assert.deepEqual(await old.barrier(), []);
    assert.deepEqual(f.hub().admin.inbox('usr_a'), []);
  });
});
