/** The daemon's small parts on their own: the bounded line splitter, the budget, the listen address, the config check. */
import assert from 'node:assert/strict';
import { daemonConfigOf, daemonProblems } from '../../../gateway/extensions/daemon';

const checkConfig = (c: Parameters<typeof daemonProblems>[0]): string[] => daemonProblems(c).map((p) => `${p.path}: ${p.problem}`);
import { LineSplitter } from '../../../gateway/extensions/daemon/line-splitter';
import { parseListen } from '../../../gateway/extensions/daemon/listen';
import { TokenBucket } from '../../../lib/token-bucket';

describe('LineSplitter', () => {
  function split(max: number, chunks: string[]): { lines: string[]; overflow: number } {
    const lines: string[] = [];
    let overflow = 0;
    const s = new LineSplitter(max, (l) => lines.push(l), () => (overflow += 1));
    for (const c of chunks) s.push(Buffer.from(c));
    return { lines, overflow };
  }

  it('joins a line across chunks and splits several in one, CRLF included', () => {
    assert.deepEqual(split(100, ['{"a":', '1}\n{"b":2}\r\n{"c"', ':3}\n']).lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  });
  it('keeps a multi-byte character split between chunks', () => {
    const bytes = Buffer.from('"é"\n');
    const lines: string[] = [];
    const s = new LineSplitter(100, (l) => lines.push(l), () => undefined);
    s.push(bytes.subarray(0, 2));
    s.push(bytes.subarray(2));
    assert.deepEqual(lines, ['"é"']);
  });
  it('a line of exactly the bound passes; one byte more overflows once and nothing more is taken', () => {
    assert.deepEqual(split(4, ['abcd\n']), { lines: ['abcd'], overflow: 0 });
    assert.deepEqual(split(4, ['ab', 'cde', '\nok\n']), { lines: [], overflow: 1 });
  });
});

describe('TokenBucket', () => {
  it('spends a burst, refuses past it without spending, refills with time', () => {
    let now = 0;
    const b = new TokenBucket(10, 3, () => now);
    assert.equal(b.take(2), true);
    assert.equal(b.take(2), false);
    assert.equal(b.take(1), true);
    assert.equal(b.take(1), false);
    now += 100;
    assert.equal(b.take(1), true);
    now -= 50_000;
    assert.equal(b.take(1), false, 'a clock that steps back mints nothing');
  });
});

describe('parseListen', () => {
  it('reads host:port and [v6]:port, refuses the rest with BAD_LISTEN', () => {
    assert.deepEqual(parseListen('127.0.0.1:4242'), { host: '127.0.0.1', port: 4242 });
    assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
    for (const bad of ['4242', 'host:', 'h:70000', '::1:4242']) assert.throws(() => parseListen(bad), (e: { code?: string }) => e.code === 'BAD_LISTEN', bad);
  });
});

describe('daemon config', () => {
  it('fills the defaults of a section loaded without the extension schema, and checks what it cannot trust', () => {
    const c = daemonConfigOf({ daemon: { enabled: true } });
    assert.equal(c.listen, '127.0.0.1:4242');
    assert.equal(c.attach_grace_ms, 10_000);
    assert.deepEqual(checkConfig(c), []);
    const problems = checkConfig({ ...c, listen: 'nope', attach_grace_ms: 5000, max_write_buffer_bytes: 1024 });
    assert.equal(problems.length, 3);
    assert.ok(problems.some((p) => p.startsWith('daemon.listen')));
    assert.ok(problems.some((p) => p.startsWith('daemon.attach_grace_ms')));
  });
});
