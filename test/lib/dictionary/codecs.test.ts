import assert from 'node:assert/strict';
import {
  decodeAppDataUpdate,
  decodeDictionary,
  decodeInboxId,
  decodeSnapshot,
  DictionaryError,
  encodeAppDataUpdate,
  encodeDictionary,
  encodeInboxId,
  encodeSnapshot,
  proposalListProblem,
  SHAPES,
  componentKey,
  parseInboxId,
} from '../../../lib/dictionary';
import { ByteReader } from '../../../lib/dictionary/byte-reader';
import { ByteWriter } from '../../../lib/dictionary/byte-writer';
import { hex } from './fixtures';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof DictionaryError, `expected a DictionaryError, got ${String(err)}`);
    return err.code;
  }
  assert.fail('expected a DictionaryError');
}

describe('lib/dictionary codecs', () => {
  describe('MLS <V> varint (RFC 9420 §2.1.2)', () => {
    const cases: [string, number][] = [
      ['00', 0],
      ['3f', 63],
      ['4040', 64],
      ['7fff', 16383],
      ['80004000', 16384],
      ['bfffffff', 0x3fffffff],
    ];
    for (const [bytes, value] of cases) {
      it(`reads ${bytes} as ${value} and writes it back the same`, () => {
        assert.equal(new ByteReader(hex(bytes), 't').mlsVarint(), value);
        const w = new ByteWriter(bytes.length / 2);
        assert.deepEqual(w.mlsVarint(value).finish(), hex(bytes));
      });
    }
    it('rejects the prefix 11', () => {
      assert.equal(code(() => new ByteReader(hex('c0'), 't').mlsVarint()), 'VARINT_INVALID_PREFIX');
    });
    it('rejects a value encoded in more bytes than needed', () => {
      assert.equal(code(() => new ByteReader(hex('4001'), 't').mlsVarint()), 'VARINT_NON_MINIMAL');
      assert.equal(code(() => new ByteReader(hex('80003fff'), 't').mlsVarint()), 'VARINT_NON_MINIMAL');
    });
    it('rejects a truncated length and a length past the end without allocating it', () => {
      assert.equal(code(() => new ByteReader(hex('40'), 't').mlsVarint()), 'TRUNCATED');
      assert.equal(code(() => new ByteReader(hex('bfffffff00'), 't').vBytes()), 'TRUNCATED');
    });
  });

  describe('QUIC varint component ids', () => {
    it('META-005 encodes 0x8000 as 80 00 80 00 and reads it back', () => {
      assert.deepEqual(new ByteWriter(4).quicComponentId(0x8000).finish(), hex('80008000'));
      assert.equal(new ByteReader(hex('80008000'), 't').quicComponentId(), 0x8000);
      assert.equal(new ByteReader(hex('8000ffff'), 't').quicComponentId(), 0xffff);
    });
    it('META-005 rejects a component id that decodes above 0xFFFF', () => {
      assert.equal(code(() => new ByteReader(hex('80010000'), 't').quicComponentId()), 'COMPONENT_ID_TOO_LARGE');
      assert.equal(code(() => new ByteReader(hex('c000000100000000'), 't').quicComponentId()), 'COMPONENT_ID_TOO_LARGE');
    });
    it('META-005 refuses to encode an id above 0xFFFF', () => {
      assert.equal(code(() => new ByteWriter(4).quicComponentId(0x10000)), 'COMPONENT_ID_TOO_LARGE');
    });
    it('META-005 accepts only the shortest encoding, so an id has one sort position', () => {
      assert.equal(code(() => new ByteReader(hex('c000000000008000'), 't').quicComponentId()), 'QUIC_VARINT_NON_MINIMAL');
      assert.equal(code(() => new ByteReader(hex('80000004'), 't').quicComponentId()), 'QUIC_VARINT_NON_MINIMAL');
    });
  });

  describe('InboxId', () => {
    const id = 'ab'.repeat(32);
    it('META-011 encodes version 0 then the 32 bytes, and decodes it', () => {
      const wire = encodeInboxId(parseInboxId(id));
      assert.equal(wire.length, 33);
      assert.equal(wire[0], 0);
      assert.deepEqual(decodeInboxId(wire), parseInboxId(id));
    });
    it('META-011 rejects a version that is not the single byte 0x00', () => {
      assert.equal(code(() => decodeInboxId(hex('01' + id))), 'INBOX_ID_VERSION');
      // 0x40 0x00 is a two-byte QUIC varint for 0: still not the single byte 0x00.
      assert.equal(code(() => decodeInboxId(hex('4000' + id))), 'INBOX_ID_VERSION');
    });
    it('accepts only the 64-lowercase-hex text form', () => {
      assert.equal(code(() => parseInboxId(id.toUpperCase())), 'INVALID_INBOX_ID');
      assert.equal(code(() => parseInboxId('ab')), 'INVALID_INBOX_ID');
    });
  });

  describe('AppDataDictionary extension', () => {
    it('encodes {0x8004: "hi"} as 05 80 04 02 68 69', () => {
      const bytes = encodeDictionary(new Map([[0x8004, new Uint8Array(Buffer.from('hi'))]]));
      assert.deepEqual(bytes, hex('058004026869'));
      assert.deepEqual([...decodeDictionary(bytes)].map(([k, v]) => [k, Buffer.from(v).toString()]), [[0x8004, 'hi']]);
    });
    it('encodes entries in ascending id order whatever the map order', () => {
      const bytes = encodeDictionary(new Map([[0x8005, hex('01')], [0x8004, hex('02')]]));
      assert.deepEqual(bytes, hex('08 8004 01 02 8005 01 01'));
    });
    it('rejects unsorted or repeated component ids', () => {
      assert.equal(code(() => decodeDictionary(hex('08 8005 0101 8004 0102'))), 'DICTIONARY_NOT_CANONICAL');
      assert.equal(code(() => decodeDictionary(hex('08 8004 0101 8004 0102'))), 'DICTIONARY_NOT_CANONICAL');
    });
    it('rejects trailing bytes and truncation', () => {
      assert.equal(code(() => decodeDictionary(hex('05800402686900'))), 'TRAILING_BYTES');
      assert.equal(code(() => decodeDictionary(hex('0580040268'))), 'TRUNCATED');
    });
  });

  describe('AppDataUpdate proposal', () => {
    it('round-trips update and remove', () => {
      const u = encodeAppDataUpdate({ componentId: 0x8004, op: 'update', update: hex('6869') });
      assert.deepEqual(u, hex('8004 01 02 6869'));
      assert.deepEqual(decodeAppDataUpdate(u), { componentId: 0x8004, op: 'update', update: hex('6869') });
      assert.deepEqual(encodeAppDataUpdate({ componentId: 0x8004, op: 'remove' }), hex('8004 02'));
      assert.deepEqual(decodeAppDataUpdate(hex('800402')), { componentId: 0x8004, op: 'remove' });
    });
    it('rejects the invalid(0) operation, unknown operations and bytes after a remove', () => {
      assert.equal(code(() => decodeAppDataUpdate(hex('800400'))), 'UNKNOWN_OPERATION');
      assert.equal(code(() => decodeAppDataUpdate(hex('800403'))), 'UNKNOWN_OPERATION');
      assert.equal(code(() => decodeAppDataUpdate(hex('80040200'))), 'TRAILING_BYTES');
    });
    it('allows one remove, or one or more updates, per component id', () => {
      const up = { componentId: 1, op: 'update', update: hex('') } as const;
      const rm = { componentId: 1, op: 'remove' } as const;
      assert.equal(proposalListProblem([up, up, { ...up, componentId: 2 }, { componentId: 3, op: 'remove' }]), undefined);
      assert.match(proposalListProblem([rm, rm])?.problem ?? '', /two Removes/);
      assert.match(proposalListProblem([up, rm])?.problem ?? '', /Update and a Remove/);
      assert.match(proposalListProblem([rm, up])?.problem ?? '', /Update and a Remove/);
    });
  });

  describe('TlsSet / TlsMap snapshots', () => {
    const a = 'aa'.repeat(32);
    const b = 'bb'.repeat(32);
    it('META-012 encodes sets with ascending unique keys and reads them back', () => {
      const entries = [{ key: parseInboxId(a), value: new Uint8Array(0) }, { key: parseInboxId(b), value: new Uint8Array(0) }];
      const bytes = encodeSnapshot(entries, SHAPES.setInbox);
      assert.deepEqual(bytes, hex(`4042 00 ${a} 00 ${b}`));
      assert.deepEqual(decodeSnapshot(bytes, SHAPES.setInbox, 't').map((e) => e.key), entries.map((e) => e.key));
    });
    it('META-012 rejects a snapshot with keys out of order or repeated', () => {
      assert.equal(code(() => decodeSnapshot(hex(`4042 00 ${b} 00 ${a}`), SHAPES.setInbox, 't')), 'SNAPSHOT_NOT_CANONICAL');
      assert.equal(code(() => decodeSnapshot(hex(`4042 00 ${a} 00 ${a}`), SHAPES.setInbox, 't')), 'SNAPSHOT_NOT_CANONICAL');
    });
    it('META-012 orders byte-string keys by their value bytes, a prefix first, not by the encoded length', () => {
      // "b" (1 byte) sorts after "ab" (2 bytes) although its encoding 01 62 is shorter.
      const ok = hex('09 02 6162 01 00 01 62 01 00');
      assert.equal(decodeSnapshot(ok, SHAPES.mapBytesBytes, 't').length, 2);
      assert.equal(code(() => decodeSnapshot(hex('09 01 62 01 00 02 6162 01 00'), SHAPES.mapBytesBytes, 't')), 'SNAPSHOT_NOT_CANONICAL');
      assert.equal(decodeSnapshot(hex('05 01 61 02 6161'), SHAPES.setBytes, 't').length, 2);
    });
    it('META-012 compares registry keys numerically', () => {
      const entries = [0x8004, 0xc000, 0x8002].sort((x, y) => x - y).map((id) => ({ key: componentKey(id), value: hex('') }));
      const bytes = encodeSnapshot(entries, SHAPES.registry);
      assert.deepEqual(bytes, hex('0f 80008002 00 80008004 00 8000c000 00'));
      assert.equal(code(() => decodeSnapshot(hex('0a 80008004 00 80008002 00'), SHAPES.registry, 't')), 'SNAPSHOT_NOT_CANONICAL');
    });
    it('META-011 rejects an inbox key whose version is not 0x00', () => {
      assert.equal(code(() => decodeSnapshot(hex(`21 01 ${a}`), SHAPES.setInbox, 't')), 'INBOX_ID_VERSION');
    });
    it('encodes an empty collection as a single 00', () => {
      assert.deepEqual(encodeSnapshot([], SHAPES.mapInboxBytes), hex('00'));
      assert.deepEqual(decodeSnapshot(hex('00'), SHAPES.mapInboxBytes, 't'), []);
    });
  });
});
