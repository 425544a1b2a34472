import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { jsonFloorText } from '../../../lib/mesh/json-floor';
import { fromPlain, toPlain } from '../../../lib/mesh/plain';
import { wireV1DtoOf, writeWireV1Dto } from '../../../lib/mesh/wire-v1';
import { asSent, meshMessage } from './arbitraries';

const RUNS = { numRuns: 400 };

describe('lib/mesh codecs (properties)', () => {
  it('the JSON floor round-trips every valid message', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        assert.deepStrictEqual(decodeFrame(encodeFrame(m, 'json')), asSent(m));
      }),
      RUNS,
    );
  });

  it('binary v1 round-trips every valid message', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        assert.deepStrictEqual(decodeFrame(encodeFrame(m, 'binary')), asSent(m));
      }),
      RUNS,
    );
  });

  it('the two codecs agree: same message decoded, and the same JSON floor rendered from either', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        const viaJson = decodeFrame(encodeFrame(m, 'json'));
        const viaBinary = decodeFrame(encodeFrame(m, 'binary'));
        assert.deepStrictEqual(viaBinary, viaJson);
        assert.equal(jsonFloorText(viaBinary), jsonFloorText(viaJson));
        assert.deepStrictEqual(encodeFrame(viaJson, 'binary'), encodeFrame(m, 'binary'));
      }),
      RUNS,
    );
  });

  it('encoding is deterministic and a re-encode of a decode gives the same bytes', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        for (const format of ['json', 'binary'] as const) {
          const frame = encodeFrame(m, format);
          assert.deepStrictEqual(encodeFrame(decodeFrame(frame), format), frame);
        }
      }),
      RUNS,
    );
  });

  it('binary metadata is sorted by UTF-8 bytes (never by UTF-16 code units)', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        const dto = wireV1DtoOf(decodeFrame(encodeFrame(m, 'binary')));
        assert.deepStrictEqual(writeWireV1Dto(dto), encodeFrame(m, 'binary'));
        const keys = dto.metadata.map(([k]) => k);
        const byBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
        assert.deepStrictEqual(keys, byBytes);
      }),
      RUNS,
    );
  });

  it('the plain form round-trips every valid message', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        assert.deepStrictEqual(fromPlain(toPlain(m)), m);
      }),
      RUNS,
    );
  });

  it('the JSON floor text is valid JSON that JSON.parse reads with the same strings', () => {
    fc.assert(
      fc.property(meshMessage, (m) => {
        const parsed = JSON.parse(jsonFloorText(m)) as Record<string, unknown>;
        assert.equal(parsed.content, m.content);
        assert.equal(parsed.sender, m.sender);
        assert.deepStrictEqual(Object.keys(parsed.metadata as object).length, m.metadata.size);
      }),
      RUNS,
    );
  });
});
