import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { fromPlain, toPlain } from '../../../lib/mesh/plain';
import { baseMessage, expectCode, fullMessage } from './fixtures';

describe('lib/mesh/plain', () => {
  describe('toPlain', () => {
    it('uses the JSON floor field names and order, ids as strings and reply_to_msg null when absent', () => {
      const p = toPlain(baseMessage());
      assert.deepEqual(Object.keys(p), ['id', 'sender', 'recipient', 'app_id', 'priority', 'ttl', 'hop_count', 'timestamp', 'lamport_clock', 'content_type', 'content', 'metadata', 'requires_ack', 'reply_to_msg']);
      assert.equal(p.id, '07070707-0707-0707-0707-070707070707');
      assert.equal(p.reply_to_msg, null);
    });

    it('gives 64-bit integers as numbers when safe and as bigints beyond 2^53', () => {
      const full = toPlain(fullMessage());
      assert.equal(full.timestamp, -1700000000123);
      assert.equal(full.lamport_clock, 9007199254740993n);
      assert.equal(full.media_metadata?.file_size, 123456);
      assert.equal(full.forwarded_from?.original_timestamp, 42);
    });

    it('gives binary_content as a Buffer and metadata as a plain object, "__proto__" as an own key', () => {
      const p = toPlain(baseMessage({ binary_content: new Uint8Array([1, 2]), metadata: new Map([['__proto__', 'x'], ['a', 'b']]) }));
      assert.ok(Buffer.isBuffer(p.binary_content));
      assert.deepEqual(Object.keys(p.metadata), ['__proto__', 'a']);
      assert.equal(Object.getPrototypeOf(p.metadata), Object.prototype);
    });
  });

  describe('fromPlain', () => {
    it('round-trips every field', () => {
      const m = fullMessage();
      assert.deepEqual(fromPlain(toPlain(m)), m);
    });

    it('accepts 64-bit integers as number, bigint or decimal string', () => {
      for (const v of [5, 5n, '5']) assert.equal(fromPlain({ ...toPlain(baseMessage()), lamport_clock: v }).lamport_clock, 5n);
      assert.equal(fromPlain({ ...toPlain(baseMessage()), lamport_clock: '18446744073709551615' }).lamport_clock, 2n ** 63n - 1n);
      assert.equal(fromPlain({ ...toPlain(baseMessage()), timestamp: '-9007199254740993' }).timestamp, -9007199254740993n);
    });

    it('refuses unsafe numbers, fractions and non-decimal strings for integers', () => {
      const p = toPlain(baseMessage());
      expectCode(() => fromPlain({ ...p, lamport_clock: 2 ** 60 }), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => fromPlain({ ...p, ttl: 1.5 }), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => fromPlain({ ...p, timestamp: '0x10' }), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => fromPlain({ ...p, timestamp: '1e3' }), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('accepts binary_content as Buffer, Uint8Array, byte array or Node-RED’s serialized Buffer; refuses a string', () => {
      const p = toPlain(baseMessage());
      for (const b of [Buffer.from([1, 2]), new Uint8Array([1, 2]), [1, 2], { type: 'Buffer', data: [1, 2] }]) {
        assert.deepEqual([...(fromPlain({ ...p, binary_content: b }).binary_content ?? [])], [1, 2]);
      }
      expectCode(() => fromPlain({ ...p, binary_content: 'AQI=' }), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => fromPlain({ ...p, binary_content: [1, 256] }), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
    });

    it('follows the JSON floor: unknown content type → file, closed priority set with aliases, null only for optionals', () => {
      const p = toPlain(baseMessage());
      assert.equal(fromPlain({ ...p, content_type: 'hologram' }).content_type, 'file');
      assert.equal(fromPlain({ ...p, priority: 'High' }).priority, 'high');
      expectCode(() => fromPlain({ ...p, priority: 'HIGH' }), MeshDecodeError, 'UNKNOWN_PRIORITY');
      expectCode(() => fromPlain({ ...p, metadata: null }), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => fromPlain({ ...p, requires_ack: null }), MeshDecodeError, 'BAD_FIELD_TYPE');
      assert.equal(fromPlain({ ...p, reply_to_msg: null, media_metadata: null }).reply_to_msg, undefined);
    });

    it('requires every field the wire requires (no defaults here)', () => {
      const p = toPlain(baseMessage()) as unknown as Record<string, unknown>;
      for (const key of ['id', 'sender', 'priority', 'ttl', 'hop_count', 'timestamp', 'content']) {
        const copy = { ...p };
        delete copy[key];
        expectCode(() => fromPlain(copy), MeshDecodeError, 'MISSING_FIELD');
      }
      expectCode(() => fromPlain('nope'), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('lets reserved metadata through: this is the protocol-level reader', () => {
      const p = { ...toPlain(baseMessage()), metadata: { ack_for: '07070707-0707-0707-0707-070707070707' } };
      assert.equal(fromPlain(p).metadata.get('ack_for'), '07070707-0707-0707-0707-070707070707');
    });
  });
});
