import assert from 'node:assert/strict';
import { parseFrame } from '../../../lib/hub';

describe('parseFrame', () => {
  it('reads a downlink into an InboundFrame', () => {
    const r = parseFrame(
      JSON.stringify({
        version: '2',
        event: 'message.send',
        trace_id: 't',
        emitted_at: 5,
        chat_id: 'c',
        chat_type: 'group',
        to: { id: 'c', type: 'direct' },
        sender: { id: 'usr_a', type: 'direct', nick_name: 'A' },
        origin_device_id: 'd1',
        seq: 42,
        dseq: 7,
        payload: { message_id: 'm' },
      }),
    );
    assert.ok(r.ok);
    assert.equal(r.frame.event, 'message.send');
    assert.equal(r.frame.dseq, 7);
    assert.equal(r.frame.seq, 42);
    assert.deepEqual(r.frame.sender, { id: 'usr_a', type: 'direct', nickName: 'A' });
    assert.equal(r.frame.originDeviceId, 'd1');
    assert.equal(r.frame.payloadValid, true);
  });

  it('tolerates missing and mistyped fields', () => {
    const r = parseFrame('{"event":5,"payload":"text","dseq":"3","sender":"x","to":[1],"chat_id":""}');
    assert.ok(r.ok);
    assert.equal(r.frame.event, '');
    assert.equal(r.frame.payloadValid, false);
    assert.deepEqual(r.frame.payload, {});
    assert.equal(r.frame.dseq, undefined);
    assert.equal(r.frame.sender, undefined);
    assert.equal(r.frame.to, undefined);
    assert.equal(r.frame.chatId, undefined);
  });

  it('fails without throwing on text that is not a JSON object, recovering a visible dseq', () => {
    const broken = parseFrame('{"version":"2","event":"message.send","dseq":12,"payload":{"message":');
    assert.equal(broken.ok, false);
    assert.equal(!broken.ok && broken.dseq, 12);
    for (const text of ['[1,2]', 'null', '"x"', '', '{', '\u0000']) {
      const r = parseFrame(text);
      assert.equal(r.ok, false, text);
    }
    assert.equal(parseFrame(Buffer.from('{"event":"pong","payload":{}}')).ok, true);
  });

  it('never throws on random bytes', () => {
    for (let i = 0; i < 500; i++) {
      const bytes = Buffer.alloc(1 + (i % 64));
      for (let j = 0; j < bytes.length; j++) bytes[j] = (i * 31 + j * 17) & 0xff;
      assert.doesNotThrow(() => parseFrame(bytes));
    }
  });
});
