import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { readRadioLink, RadioLinkWriter } from '../../bench/radio-link';

/** The units of one record, back as arrays of byte values. */
function unitsOf(bytes: Uint8Array): number[][] {
  const units: number[][] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = (bytes[at]! << 8) | bytes[at + 1]!;
    units.push([...bytes.subarray(at + 2, at + 2 + n)]);
    at += 2 + n;
  }
  return units;
}

describe('bench radio link', () => {
  it('hands over every batch of units, whole and in order, wherever the reads cut the stream', async () => {
    const stream = new PassThrough();
    const got: Array<[number, number[][]]> = [];
    readRadioLink((peer, bytes) => got.push([peer, unitsOf(bytes)]), stream);
    const sent: Array<[number, number[][]]> = [];
    const records: Buffer[] = [];
    for (let i = 0; i < 40; i += 1) {
      const units = Array.from({ length: 1 + (i % 4) }, (_, k) => Array.from({ length: (i * 37 + k * 11) % 300 }, (_, b) => (b + i) & 0xff));
      sent.push([i % 7, units]);
      records.push(RadioLinkWriter.record(i % 7, units.map((u) => Uint8Array.from(u))));
    }
    // Reads of odd sizes: headers and records split across reads, several records in one read.
    const all = Buffer.concat(records);
    const cuts = [1, 5, 6, 7, 300, 2, 900, 13];
    for (let at = 0, k = 0; at < all.length; k += 1) {
      const n = cuts[k % cuts.length]!;
      stream.write(all.subarray(at, at + n));
      at += n;
    }
    stream.end();
    await new Promise((r) => stream.once('end', r));
    assert.deepEqual(got, sent);
  });
});
