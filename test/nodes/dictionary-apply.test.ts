import assert from 'node:assert/strict';
import { nextMessage, useNodeRed } from '../support/node-red';
import { componentKey, createConversation, decodeDictionary, encodeAppDataUpdate, encodeComponentMetadata, encodeDelta, ID, SHAPES } from '../../lib/dictionary';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const dictionaryNode = require('../../nodes/dictionary-apply');

const ALICE = 'a1'.repeat(32);
const BOB = 'b2'.repeat(32);
const SIGNER = Buffer.alloc(32, 7);

type Msg = Record<string, unknown>;
interface TestNode {
  receive(msg: Msg): void;
  once(event: string, cb: (arg: never) => void): void;
}

function flow(operation: string, extra: Record<string, unknown> = {}): { id: string; type: string; [k: string]: unknown }[] {
  return [
    { id: 'tab1', type: 'tab', label: 'test' },
    { id: 'n1', type: 'dictionary-apply', z: 'tab1', name: '', operation, actor: ALICE, output: 'buffer', wires: [['out1']], ...extra },
    { id: 'out1', type: 'helper', z: 'tab1' },
    { id: 'catch1', type: 'catch', z: 'tab1', scope: null, uncaught: false, wires: [['caught1']] },
    { id: 'caught1', type: 'helper', z: 'tab1' },
  ];
}

describe('dictionary-apply node', function () {
  const helper = useNodeRed();
  const group = (): Buffer => Buffer.from(createConversation({ kind: 'group', creator: ALICE, name: 'Lobby', commitLogSigner: SIGNER }).bytes);

  async function run(operation: string, msg: Msg, extra: Record<string, unknown> = {}): Promise<Msg> {
    await helper.load(dictionaryNode, flow(operation, extra));
    const out = helper.getNode('out1') as unknown as TestNode;
    const got = nextMessage<Msg>(out);
    (helper.getNode('n1') as unknown as TestNode).receive(msg);
    return got;
  }

  async function runFailing(operation: string, msg: Msg): Promise<Msg> {
    await helper.load(dictionaryNode, flow(operation));
    const caught = nextMessage<Msg>(helper.getNode('caught1') as unknown as TestNode);
    (helper.getNode('n1') as unknown as TestNode).receive(msg);
    return caught;
  }

  it('loads with its configuration', async () => {
    await helper.load(dictionaryNode, flow('describe', { name: 'fields' }));
    const n = helper.getNode('n1') as unknown as { name: string; type: string };
    assert.equal(n.type, 'dictionary-apply');
    assert.equal(n.name, 'fields');
  });

  it('create: builds the epoch-0 dictionary as a Buffer with a summary', async () => {
    const msg = await run('create', { payload: { kind: 'group', creator: ALICE, name: 'Kitchen', commit_log_signer: SIGNER.toString('hex') } });
    assert.ok(Buffer.isBuffer(msg.dictionary));
    const d = decodeDictionary(msg.dictionary as Buffer);
    assert.equal(Buffer.from(d.get(ID.GROUP_NAME) as Uint8Array).toString(), 'Kitchen');
    assert.equal((msg.payload as Msg).required_capabilities, '020006020008' + '00');
    assert.match(String(msg.summary), /created group 'Kitchen'/);
  });

  it('apply: applies proposals and outputs the new dictionary, the change records and a summary', async () => {
    const proposal = Buffer.concat([Buffer.from('80040107', 'hex'), Buffer.from('Kitchen')]);
    const msg = await run('apply', { dictionary: group(), proposals: [proposal] });
    assert.deepEqual(msg.changes, [{ field_name: 'group_name', old_value: 'Lobby', new_value: 'Kitchen' }]);
    assert.equal(msg.summary, 'group_name: "Lobby" → "Kitchen"');
    assert.equal(Buffer.from(decodeDictionary(msg.dictionary as Buffer).get(ID.GROUP_NAME) as Uint8Array).toString(), 'Kitchen');
  });

  it('apply: a rejected commit reaches Catch with COMMIT_REJECTED and the internal reason, and the status shows the code', async () => {
    await helper.load(dictionaryNode, flow('apply'));
    const n1 = helper.getNode('n1') as unknown as TestNode;
    const caught = nextMessage<Msg>(helper.getNode('caught1') as unknown as TestNode);
    const status = new Promise<{ args: [{ text: string; fill: string }] }>((resolve) => n1.once('call:status', resolve as never));
    // BOB is not a super admin: a registry write is refused.
    const allow = { kind: 'base', base: 1 } as const;
    const entry = encodeComponentMetadata({ componentType: 2, permissions: { insert: allow, update: allow, delete: allow } });
    const insert = encodeDelta([{ type: 'insert', key: componentKey(0xc001), value: entry }], SHAPES.registry);
    n1.receive({ dictionary: group(), proposals: [Buffer.from(encodeAppDataUpdate({ componentId: ID.COMPONENT_REGISTRY, op: 'update', update: insert }))], actor: BOB });
    const msg = await caught;
    assert.equal((msg.error as Msg).code, 'COMMIT_REJECTED');
    assert.deepEqual(msg.rejection, { code: 'COMMIT_REJECTED', reason: 'NOT_AUTHORIZED', rule: 'PERM-026' });
    const s = (await status).args[0];
    assert.equal(s.fill, 'red');
    assert.match(s.text, /COMMIT_REJECTED/);
  });

  it('honours msg.operation over the configured one and takes the dictionary in its JSON form', async () => {
    const json = { components: [...decodeDictionary(group())].map(([id, v]) => ({ id: `0x${id.toString(16)}`, hex: Buffer.from(v).toString('hex') })) };
    const msg = await run('create', { operation: 'read', dictionary: json, payload: { fields: ['GROUP_NAME', 'APP_DATA'] } });
    assert.deepEqual((msg.payload as Msg).values, [
      { field: { id: '0x8004', name: 'GROUP_NAME' }, value: { type: 'string', value: 'Lobby' } },
      { field: { id: '0x8009', name: 'APP_DATA' }, value: { type: 'string', value: '' } },
    ]);
  });

  it('describe: lists the fields with shapes and policies', async () => {
    const msg = await run('describe', { dictionary: group() });
    const fields = (msg.payload as Msg).fields as Msg[];
    const name = fields.find((f) => f.name === 'GROUP_NAME');
    assert.deepEqual(name?.policies, { insert: 'ALLOW', update: 'ALLOW', delete: 'ALLOW' });
    assert.equal(fields.find((f) => f.name === 'USER_DISPLAY_NAME')?.is_user_field, true);
  });

  it('write then apply: the write emits proposals that an apply node accepts, output as JSON when configured', async () => {
    const written = await run('write', { dictionary: group(), payload: { field: 'GROUP_NAME', value: 'Lounge' } });
    assert.ok(Array.isArray(written.proposals) && Buffer.isBuffer((written.proposals as Buffer[])[0]));
    await helper.unload();
    const applied = await run('apply', { dictionary: group(), proposals: written.proposals }, { output: 'json' });
    assert.deepEqual(applied.changes, [{ field_name: 'group_name', old_value: 'Lobby', new_value: 'Lounge' }]);
    const comps = (applied.dictionary as { components: { name?: string; hex: string }[] }).components;
    assert.equal(Buffer.from(comps.find((c) => c.name === 'GROUP_NAME')?.hex as string, 'hex').toString(), 'Lounge');
  });

  it('write: a denied policy fails with POLICY_DENIED at Catch', async () => {
    const msg = await runFailing('write', { dictionary: group(), actor: BOB, payload: { field: 'MESSAGE_DISAPPEAR_IN_NS', value: { hex: '0000000000000001' } } });
    assert.equal((msg.error as Msg).code, 'POLICY_DENIED');
  });

  it('write-user-data and read-user-data: a profile edit and the profile list', async () => {
    const written = await run('write-user-data', { dictionary: group(), payload: { values: [{ field: 'USER_DISPLAY_NAME', value: 'Alice' }] } });
    assert.equal((written.proposals as Buffer[]).length, 1);
    await helper.unload();
    const applied = await run('apply', { dictionary: group(), proposals: written.proposals });
    await helper.unload();
    const read = await run('read-user-data', { dictionary: applied.dictionary });
    assert.deepEqual((read.payload as Msg).users, [{ inbox_id: ALICE, values: [{ field: { id: '0x800C', name: 'USER_DISPLAY_NAME' }, value: 'Alice' }] }]);
  });

  it('validate-welcome: accepts a group and sends a refused Welcome to Catch as WELCOME_REJECTED', async () => {
    const ok = await run('validate-welcome', { dictionary: group(), payload: { client_version: '1.0.0' } });
    assert.equal((ok.payload as Msg).conversation_type, 'group');
    await helper.unload();
    const bad = await runFailing('validate-welcome', { dictionary: Buffer.from('058004026869', 'hex') });
    assert.equal((bad.error as Msg).code, 'WELCOME_REJECTED');
    assert.deepEqual(bad.rejection, { code: 'WELCOME_REJECTED', reason: 'MISSING_IDENTITY', rule: 'META-019' });
  });

  it('expiry: computes an expiry from sent_at_ns as a decimal string', async () => {
    const msg = await run('expiry', { payload: { disappear_from_ns: '1', disappear_in_ns: '9223372036854775807', sent_at_ns: '100', now_ns: '200' } });
    assert.deepEqual(msg.payload, {
      expiry_ns: '9223372036854775807',
      settings: { from_ns: '1', in_ns: '9223372036854775807', enabled: true },
      expired: false,
    });
  });

  it('reports an unknown operation and a missing dictionary with INVALID_ARGUMENT', async () => {
    const msg = await runFailing('apply', { operation: 'frobnicate' });
    assert.equal((msg.error as Msg).code, 'INVALID_ARGUMENT');
    await helper.unload();
    const missing = await runFailing('describe', {});
    assert.equal((missing.error as Msg).code, 'INVALID_ARGUMENT');
  });

  it('counts handled messages in its status', async () => {
    await helper.load(dictionaryNode, flow('describe'));
    const n1 = helper.getNode('n1') as unknown as TestNode;
    const status = new Promise<{ args: [{ text: string; fill: string }] }>((resolve) => n1.once('call:status', resolve as never));
    n1.receive({ dictionary: group() });
    const s = (await status).args[0];
    assert.equal(s.fill, 'green');
    assert.match(s.text, /^1 /);
  });
});
