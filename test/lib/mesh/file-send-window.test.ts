import { strict as assert } from 'node:assert';
import { ackTarget, buildAck } from '../../../lib/mesh/ack';
import { CHUNK_PROFILES, chunkFile } from '../../../lib/mesh/chunked-file';
import { MeshEncodeError } from '../../../lib/mesh/errors';
import { FileSendWindow } from '../../../lib/mesh/file-send-window';
import { MessageId } from '../../../lib/mesh/message-id';

const chunks = chunkFile(new Uint8Array(5 * 4096).fill(9), { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'f', transport: 'ble' });

describe('FileSendWindow', () => {
  it('lets out at most the window, in order', () => {
    const w = new FileSendWindow(chunks, CHUNK_PROFILES.ble.window);
    assert.deepEqual(w.next(), chunks.slice(0, 2));
    assert.deepEqual(w.next(), []);
    assert.equal(w.inFlight, 2);
  });

  it('advances one slot per ACK of an in-flight chunk', () => {
    const w = new FileSendWindow(chunks, 2);
    w.next();
    const ack = buildAck(chunks[1], { localId: 'bob', appId: 'app', transport: 'ble' });
    assert.equal(w.acknowledge(ackTarget(ack) as string), true);
    assert.deepEqual(w.next(), [chunks[2]]);
    assert.equal(w.acknowledge(chunks[1].id), false, 'a repeated ACK frees nothing');
    assert.equal(w.acknowledge(MessageId.random()), false, 'an unrelated ACK frees nothing');
    assert.equal(w.acknowledge('not-a-uuid'), false);
  });

  it('accepts any UUID spelling of the acked id', () => {
    const w = new FileSendWindow(chunks, 1);
    w.next();
    assert.equal(w.acknowledge(chunks[0].id.toString().toUpperCase().replace(/-/g, '')), true);
  });

  it('frees a slot for a chunk that failed for good, and is done when every chunk is acknowledged', () => {
    const w = new FileSendWindow(chunks, 2);
    const first = w.next();
    assert.equal(w.fail(first[0].id), true);
    const sent = [...first, ...w.next()];
    assert.equal(sent.length, 3);
    for (let round = 0; round < 10 && !w.done; round++) {
      for (const c of sent.splice(0)) w.acknowledge(c.id);
      sent.push(...w.next());
    }
    assert.ok(w.done);
    assert.equal(w.acknowledged, 5);
    assert.equal(w.inFlight, 0);
  });

  it('refuses a window below 1', () => {
    assert.throws(() => new FileSendWindow(chunks, 0), (e: unknown) => e instanceof MeshEncodeError && e.code === 'BAD_OPTION');
  });
});
