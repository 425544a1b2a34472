import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PAIRED_PEERS_FILE, PeerAdmission, parsePairedPeers, type PairingState } from '../../../gateway/radios/peer-admission';
import { ManualClock } from '../../../lib/clock';
import { TestLogger } from './support/test-logger';

const ADDRESS = 'off1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq';

describe('gateway/radios PeerAdmission (the pairing window and <state_dir>/paired-peers.json)', () => {
  let dir: string;
  let clock: ManualClock;
  let logger: TestLogger;
  const make = (windowMs = 60_000): PeerAdmission => new PeerAdmission({ stateDir: dir, clock, logger, windowMs });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admission-'));
    clock = new ManualClock();
    logger = new TestLogger();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is closed by default: nobody is admitted and nothing is written', () => {
    const a = make();
    assert.equal(a.isOpen, false);
    assert.equal(a.admit('ble0', [ADDRESS]), false);
    assert.equal(a.isPaired(ADDRESS), false);
    assert.equal(fs.existsSync(path.join(dir, PAIRED_PEERS_FILE)), false);
  });

  it('admits and remembers peers while open, across a restart, and closes by itself with a log naming them', () => {
    const a = make(60_000);
    const seen: PairingState[] = [];
    a.onChange((s) => seen.push(s));
    a.open();
    assert.equal(a.state().until, clock.now() + 60_000);
    assert.equal(a.admit('ble0', [ADDRESS, 'aabbcc00000a']), true);
    assert.equal(a.admit('ble0', [ADDRESS]), true, 'a known peer is admitted again without a second record');
    assert.ok(a.isPaired(ADDRESS) && a.isPaired('aabbcc00000a'));
    clock.advance(59_999);
    assert.equal(a.isOpen, true);
    clock.advance(1);
    assert.equal(a.isOpen, false, 'the window closed by itself');
    assert.deepEqual(seen.map((s) => s.open), [true, true, false]);
    const closed = logger.lines.find((l) => l.msg?.startsWith('pairing window closed (timeout)'));
    assert.ok(closed, 'the close is logged');
    assert.deepEqual((closed.obj as { admitted: string[] }).admitted, [ADDRESS, 'aabbcc00000a']);
    assert.equal(a.admit('ble0', ['someone-else']), false, 'closed again: no new peer');

    const file = JSON.parse(fs.readFileSync(path.join(dir, PAIRED_PEERS_FILE), 'utf8')) as { version: number; peers: { ref: string; radio: string; admitted_at: string }[] };
    assert.equal(file.version, 1);
    assert.deepEqual(file.peers.map((p) => [p.ref, p.radio]), [[ADDRESS, 'ble0'], ['aabbcc00000a', 'ble0']]);
    assert.equal(file.peers[0]!.admitted_at, new Date(clock.now() - 60_000).toISOString());

    const after = make();
    assert.equal(after.isPaired(ADDRESS), true, 'the record outlives the process');
    assert.equal(after.isOpen, false, 'a restart never reopens a window');
  });

  it('takes an explicit length, and opening again extends the window without forgetting what it admitted', () => {
    const a = make(300_000);
    a.open(10_000);
    a.admit('ble0', [ADDRESS]);
    clock.advance(9_000);
    a.open(10_000);
    clock.advance(9_000);
    assert.equal(a.isOpen, true);
    assert.deepEqual(a.state().admitted.map((p) => p.ref), [ADDRESS]);
    a.close();
    assert.equal(a.isOpen, false);
    assert.equal(clock.pending(), 0, 'no timer left behind');
  });

  it('sets an unreadable file aside, says so, and starts with no paired peer', () => {
    fs.writeFileSync(path.join(dir, PAIRED_PEERS_FILE), '{"version": 1, "peers": [{"ref": 7}]}');
    const a = make();
    assert.equal(a.list().length, 0);
    assert.ok(fs.existsSync(path.join(dir, `${PAIRED_PEERS_FILE}.unreadable`)));
    assert.ok(logger.lines.some((l) => l.level === 'error' && /set aside/.test(l.msg ?? '')));
  });

  it('reads only version-1 files with a ref per peer', () => {
    assert.equal(parsePairedPeers('not json'), undefined);
    assert.equal(parsePairedPeers('{"version": 2, "peers": []}'), undefined);
    assert.equal(parsePairedPeers('{"version": 1}'), undefined);
    assert.deepEqual(parsePairedPeers('{"version": 1, "peers": [{"ref": "x"}]}'), [{ ref: 'x', radio: '', admitted_at: '' }]);
  });

  it('keeps the admission for the run when the file cannot be written, and logs it', () => {
    const blocked = path.join(dir, 'state-is-a-file');
    fs.writeFileSync(blocked, '');
    const a = new PeerAdmission({ stateDir: blocked, clock, logger, windowMs: 1_000 });
    a.open();
    assert.equal(a.admit('ble0', [ADDRESS]), true);
    assert.equal(a.isPaired(ADDRESS), true);
    assert.ok(logger.lines.some((l) => l.level === 'error' && /could not be saved/.test(l.msg ?? '')));
  });
});
