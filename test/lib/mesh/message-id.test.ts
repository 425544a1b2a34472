import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { MessageId } from '../../../lib/mesh/message-id';
import { expectCode } from './fixtures';

const CANONICAL = '67e55044-10b1-426f-9247-bb680e5fe0c8';

describe('lib/mesh/message-id', () => {
  describe('MessageId.parse', () => {
    it('accepts hyphenated, simple, braced and urn:uuid forms in any hex case', () => {
      for (const text of [
        CANONICAL,
        CANONICAL.toUpperCase(),
        '67E55044-10b1-426F-9247-bb680E5FE0C8',
        '67e5504410b1426f9247bb680e5fe0c8',
        `{${CANONICAL}}`,
        `{${CANONICAL.toUpperCase()}}`,
        `urn:uuid:${CANONICAL}`,
      ]) {
        assert.equal(MessageId.parse(text).toString(), CANONICAL, text);
      }
    });

    it('accepts any UUID version, including nil and max', () => {
      assert.equal(MessageId.parse('00000000-0000-0000-0000-000000000000').toString(), '00000000-0000-0000-0000-000000000000');
      assert.equal(MessageId.parse('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF').toString(), 'ffffffff-ffff-ffff-ffff-ffffffffffff');
    });

    it('rejects misplaced hyphens, wrong lengths, non-hex, an upper-case URN prefix and braces around the simple form', () => {
      for (const text of [
        '',
        '67e55044-10b1-426f-9247-bb680e5fe0c',
        '67e5504-410b1-426f-9247-bb680e5fe0c8',
        '67e55044-10b1-426f-9247-bb680e5fe0cg',
        '67e55044_10b1_426f_9247_bb680e5fe0c8',
        `URN:UUID:${CANONICAL}`,
        '{67e5504410b1426f9247bb680e5fe0c8}',
        `[${CANONICAL}]`,
        ` ${CANONICAL}`,
        '67e5504410b1426f9247bb680e5fe0c8a',
      ]) {
        expectCode(() => MessageId.parse(text), MeshDecodeError, 'BAD_UUID');
      }
    });

    it('rejects non-strings with the same code', () => {
      expectCode(() => MessageId.parse(42 as unknown as string), MeshDecodeError, 'BAD_UUID');
    });
  });

  describe('MessageId.fromBytes', () => {
    it('takes exactly 16 bytes and copies them', () => {
      const bytes = new Uint8Array(16).fill(0xab);
      const id = MessageId.fromBytes(bytes);
      bytes[0] = 0;
      assert.equal(id.toString(), 'abababab-abab-abab-abab-abababababab');
      expectCode(() => MessageId.fromBytes(new Uint8Array(15)), MeshDecodeError, 'BAD_UUID');
      expectCode(() => MessageId.fromBytes(new Uint8Array(17)), MeshDecodeError, 'BAD_UUID');
    });
  });

  describe('MessageId.random / equals / toJSON', () => {
    it('gives distinct version-4 ids that compare by value', () => {
      const a = MessageId.random();
      const b = MessageId.random();
      assert.match(a.toString(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.ok(!a.equals(b));
      assert.ok(a.equals(MessageId.parse(a.toString().toUpperCase())));
      assert.equal(JSON.stringify({ id: a }), `{"id":"${a.toString()}"}`);
      assert.ok(!a.equals(undefined));
    });

    it('never repeats across refills of its random pool, each id version 4 with the RFC 4122 variant', () => {
      const seen = new Set<string>();
      for (let i = 0; i < 2000; i++) {
        const id = MessageId.random();
        assert.equal(id.bytes[6]! >> 4, 4);
        assert.equal(id.bytes[8]! >> 6, 2);
        seen.add(id.toString());
      }
      assert.equal(seen.size, 2000);
    });
  });
});

describe('MessageId.toString, the one spelling of an id (the gateway uses it as it is)', () => {
  it('spells every id lowercase hyphenated, as the hex of its bytes says', () => {
    for (let i = 0; i < 500; i++) {
      const id = MessageId.random();
      const hex = Buffer.from(id.bytes).toString('hex');
      assert.equal(id.toString(), `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
      assert.equal(id.toString(), id.toString(), 'the same text every time');
    }
    assert.equal(MessageId.parse('0B6C2D0E-3F43-4A43-9D0C-4D1C9B0F2A11').toString(), '0b6c2d0e-3f43-4a43-9d0c-4d1c9b0f2a11');
    assert.equal(MessageId.fromBytes(new Uint8Array(16).fill(255)).toString(), 'ffffffff-ffff-ffff-ffff-ffffffffffff');
  });
});
