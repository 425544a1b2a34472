import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { applyCommit, createConversation, decodeDictionary, encodeAppDataUpdate, ID } from '../../lib/dictionary';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const ALICE = 'a1'.repeat(32);
const BOB = 'b2'.repeat(32);
const SIGNER = '07'.repeat(32);

function clawling(args: string[], input?: string): { status: number | null; stdout: string; stderr: string; json?: Record<string, unknown> } {
  const run = spawnSync(process.execPath, [BIN, 'dict', ...args], { encoding: 'utf8', input });
  let json: Record<string, unknown> | undefined;
  if (run.status === 0) {
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'one JSON object on one line');
    json = JSON.parse(lines[0]) as Record<string, unknown>;
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, json };
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('clawling dict', function () {
  this.timeout(30_000);
  const group = createConversation({ kind: 'group', creator: ALICE, name: 'Lobby', commitLogSigner: Buffer.from(SIGNER, 'hex') }).bytes;
  const rename = encodeAppDataUpdate({ componentId: ID.GROUP_NAME, op: 'update', update: Buffer.from('Kitchen') });
  const describeIt = encodeAppDataUpdate({ componentId: ID.GROUP_DESCRIPTION, op: 'update', update: Buffer.from('Cooking') });

  it('apply prints the new dictionary and the change records, exit 0, the same as the library', () => {
    const run = clawling(['apply', '--dictionary', hex(group), '--proposal', hex(rename), '--proposal', hex(describeIt), '--actor', ALICE]);
    assert.equal(run.status, 0, run.stderr);
    const lib = applyCommit(group, [rename, describeIt], ALICE);
    assert.ok(lib.ok);
    assert.deepEqual(run.json, {
      ok: true,
      dictionary: hex(lib.bytes),
      changes: [
        { field_name: 'group_name', old_value: 'Lobby', new_value: 'Kitchen' },
        { field_name: 'description', old_value: null, new_value: 'Cooking' },
      ],
    });
  });

  it('apply prints a rejection as {ok:false, code, reason} with exit 0', () => {
    const adminOnly = encodeAppDataUpdate({ componentId: ID.MESSAGE_DISAPPEAR_IN_NS, op: 'update', update: Buffer.alloc(8, 1) });
    const run = clawling(['apply', '--dictionary', hex(group), '--proposal', hex(adminOnly), '--actor', BOB]);
    assert.equal(run.status, 0);
    assert.deepEqual(run.json, { ok: false, code: 'COMMIT_REJECTED', reason: 'NOT_AUTHORIZED' });
    const external = clawling(['apply', '--dictionary', hex(group), '--proposal', hex(rename), '--actor', ALICE, '--external']);
    assert.deepEqual(external.json, { ok: false, code: 'COMMIT_REJECTED', reason: 'NOT_AUTHORIZED' });
    const garbage = clawling(['apply', '--dictionary', hex(group), '--proposal', '8004', '--actor', ALICE]);
    assert.deepEqual(garbage.json, { ok: false, code: 'COMMIT_REJECTED', reason: 'TRUNCATED' });
  });

  it('apply exits 2 for unusable arguments', () => {
    const cases: string[][] = [
      ['apply', '--dictionary', 'zz', '--proposal', hex(rename), '--actor', ALICE],
      ['apply', '--dictionary', hex(group), '--actor', ALICE],
      ['apply', '--dictionary', hex(group), '--proposal', hex(rename), '--actor', 'A1'.repeat(32)],
      ['apply', '--dictionary', hex(group), '--proposal', hex(rename)],
      ['apply', '--dictionary', hex(group), '--proposal', hex(rename), '--actor', ALICE, '--bogus'],
      ['frobnicate'],
    ];
    for (const args of cases) {
      const run = clawling(args);
      assert.equal(run.status, 2, args.join(' '));
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /clawling dict: /);
    }
  });

  it('write prints the proposals of one field change, the same bytes the library encodes', () => {
    const run = clawling(['write', '--dictionary', hex(group), '--actor', ALICE, '--field', 'GROUP_NAME', '--value', 'Kitchen']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.json!.ok, true);
    assert.deepEqual(run.json!.proposals, [hex(rename)]);
    const byId = clawling(['write', '--dictionary', hex(group), '--actor', ALICE, '--field', '0x8004', '--value', 'Kitchen']);
    assert.deepEqual(byId.json!.proposals, [hex(rename)]);
    const unknown = clawling(['write', '--dictionary', hex(group), '--actor', ALICE, '--field', 'NO_SUCH_FIELD', '--value', 'x']);
    assert.equal(unknown.json!.ok, false);
    for (const args of [
      ['write', '--dictionary', hex(group), '--actor', ALICE, '--value', 'x'],
      ['write', '--dictionary', hex(group), '--actor', ALICE, '--field', 'GROUP_NAME', '--field', 'GROUP_DESCRIPTION', '--value', 'x'],
      ['write', '--dictionary', hex(group), '--field', 'GROUP_NAME', '--value', 'x'],
      ['write', '--actor', ALICE, '--field', 'GROUP_NAME', '--value', 'x'],
    ]) {
      assert.equal(clawling(args).status, 2, args.join(' '));
    }
  });

  it('--hex prints only the bytes of create, write and apply, and a rejection on stderr with exit 1', () => {
    const bare = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
      const run = spawnSync(process.execPath, [BIN, 'dict', ...args, '--hex'], { encoding: 'utf8' });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    };
    const created = bare(['create', '--kind', 'group', '--creator', ALICE, '--name', 'Lobby']);
    assert.equal(created.status, 0, created.stderr);
    const dict = created.stdout.trim();
    assert.match(dict, /^[0-9a-f]+$/);
    assert.ok(decodeDictionary(Buffer.from(dict, 'hex')).size > 0);
    const proposal = bare(['write', '--dictionary', dict, '--actor', ALICE, '--field', 'GROUP_NAME', '--value', 'Kitchen']).stdout.trim();
    assert.equal(proposal, hex(rename));
    const applied = bare(['apply', '--dictionary', dict, '--proposal', proposal, '--actor', ALICE]);
    const lib = applyCommit(Buffer.from(dict, 'hex'), [rename], ALICE);
    assert.ok(lib.ok);
    assert.equal(applied.stdout, `${hex(lib.bytes)}\n`);
    const refused = bare(['apply', '--dictionary', dict, '--proposal', proposal, '--actor', ALICE, '--external']);
    assert.equal(refused.status, 1);
    assert.equal(refused.stdout, '');
    assert.deepEqual(JSON.parse(refused.stderr), { ok: false, code: 'COMMIT_REJECTED', reason: 'NOT_AUTHORIZED' });
    assert.equal(bare(['describe', '--dictionary', dict]).status, 2, 'describe answers with more than bytes');
  });

  it('create prints a dictionary a joiner accepts, from flags or from a JSON request on stdin', () => {
    const run = clawling(['create', '--kind', 'group', '--creator', ALICE, '--name', 'Lobby', '--signer', SIGNER]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.json?.ok, true);
    assert.equal(run.json?.dictionary, hex(group));
    assert.equal(run.json?.required_capabilities, '020006020008' + '00');
    const viaStdin = clawling(['create', '--request', '-'], JSON.stringify({ kind: 'dm', creator: ALICE, dm_peer: BOB, commit_log_signer: SIGNER }));
    assert.equal(viaStdin.status, 0, viaStdin.stderr);
    const d = decodeDictionary(Buffer.from(String(viaStdin.json?.dictionary), 'hex'));
    assert.deepEqual(d.get(ID.CONVERSATION_TYPE), Buffer.from('00000002', 'hex'));
    const tooLong = clawling(['create', '--kind', 'group', '--creator', ALICE, '--name', 'n'.repeat(101)]);
    assert.equal(tooLong.status, 0);
    assert.equal(tooLong.json?.ok, false);
    assert.equal(tooLong.json?.code, 'VALUE_TOO_LONG');
    assert.equal(clawling(['create', '--kind', 'group']).status, 2);
    assert.equal(clawling(['create', '--request', '{not json']).status, 2);
  });

  it('describe and read print fields and typed values', () => {
    const described = clawling(['describe', '--dictionary', hex(group)]);
    assert.equal(described.status, 0, described.stderr);
    const names = (described.json?.fields as { name?: string }[]).map((f) => f.name);
    assert.ok(names.includes('GROUP_NAME') && names.includes('USER_DISPLAY_NAME'));
    const read = clawling(['read', '--dictionary', hex(group), '--field', 'GROUP_NAME', '--field', '0x8009']);
    assert.deepEqual(read.json?.values, [
      { field: { id: '0x8004', name: 'GROUP_NAME' }, value: { type: 'string', value: 'Lobby' } },
      { field: { id: '0x8009', name: 'APP_DATA' }, value: { type: 'string', value: '' } },
    ]);
    const key = clawling(['read', '--dictionary', hex(group), '--field', 'USER_DISPLAY_NAME', '--key', ALICE]);
    assert.deepEqual(key.json, { ok: true, value: null, summary: 'key absent' });
    const missing = clawling(['read', '--dictionary', hex(group), '--field', 'NOPE']);
    assert.equal(missing.json?.ok, false);
    assert.equal(missing.json?.code, 'FIELD_NOT_FOUND');
    assert.equal(clawling(['read', '--field', 'GROUP_NAME']).status, 2);
  });
});
