import assert from 'node:assert/strict';
import { compareSemVer, parseNormalVersion, parseSemVer, readVersionFloor } from '../../../lib/dictionary';
import { decodeDictionary, encodeDictionary, ID } from '../../../lib/dictionary';
import { groupBytes, utf8 } from './fixtures';

function cmp(a: string, b: string): number {
  const x = parseSemVer(a);
  const y = parseSemVer(b);
  assert.ok(x && y, `${a} ${b}`);
  return compareSemVer(x, y);
}

describe('lib/dictionary version floor', () => {
  it('META-062 reports the floor and whether the group is paused for this client version', () => {
    const g = groupBytes({ minSupportedProtocolVersion: '1.4.0' });
    assert.deepEqual(readVersionFloor(g, '1.3.9'), { floor: '1.4.0', paused: true, malformed: false });
    assert.deepEqual(readVersionFloor(g, '1.4.0'), { floor: '1.4.0', paused: false, malformed: false });
    assert.deepEqual(readVersionFloor(g, '1.10.0'), { floor: '1.4.0', paused: false, malformed: false });
    // A pre-release of the floor's version comes before it (SemVer §11).
    assert.equal(readVersionFloor(g, '1.4.0-rc.1').paused, true);
  });

  it('META-062 pauses on a floor that is not a §2 version, and not at all without a floor', () => {
    const m = decodeDictionary(groupBytes());
    m.set(ID.MIN_SUPPORTED_PROTOCOL_VERSION, utf8('v1'));
    assert.deepEqual(readVersionFloor(encodeDictionary(m), '9.9.9'), { floor: 'v1', paused: true, malformed: true });
    m.delete(ID.MIN_SUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual(readVersionFloor(encodeDictionary(m), '0.0.1'), { paused: false, malformed: false });
    assert.throws(() => readVersionFloor(encodeDictionary(m), 'one'), { code: 'INVALID_ARGUMENT' });
  });

  it('compares by Semantic Versioning 2.0.0 §11 precedence', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.2.0', '1.10.0', '2.0.0'];
    for (let i = 0; i + 1 < ordered.length; i++) assert.equal(cmp(ordered[i], ordered[i + 1]), -1, `${ordered[i]} < ${ordered[i + 1]}`);
    assert.equal(cmp('1.0.0+build.1', '1.0.0+other'), 0);
    assert.equal(cmp('123456789012345678901234567890.0.0', '123456789012345678901234567889.9.9'), 1);
  });

  it('accepts only X.Y.Z without leading zeros as a floor', () => {
    for (const ok of ['0.0.0', '1.2.3', '10.20.30']) assert.ok(parseNormalVersion(ok), ok);
    for (const bad of ['1.2', '01.2.3', '1.2.3-rc.1', '1.2.3+b', ' 1.2.3', 'v1.2.3', '1.2.3.4']) assert.equal(parseNormalVersion(bad), undefined, bad);
    assert.equal(parseSemVer('1.0.0-01'), undefined);
  });
});
