import assert from 'node:assert/strict';
import YAML from 'yaml';
import { loadConfig } from '../../../gateway/load-config';
import { compileMappings, parsePointer, readingsOf } from '../../../gateway/mesh-nodes/readings';
import type { DeviceMapping } from '../../../gateway/mesh-nodes/types';
import { createMessage, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

const A = 'off1q95fm2f5p8degp79tm3kkuns0hqyx74kwuxqthpk';

function m(content: string, extra: Record<string, unknown> = {}): MeshMessage {
  return createMessage({ id: MessageId.random(), sender: A, recipient: 'x', app_id: 'sensors', priority: 'medium', ttl: 8, hop_count: 0, timestamp: 1n, content, ...extra });
}

function devices(list: unknown[], names: Record<string, string> = {}): DeviceMapping[] {
  return loadConfig({ text: YAML.stringify({ nodes: { names }, devices: list }), env: {} }).config.devices;
}

function problems(list: unknown[], names: Record<string, string> = {}): string[] {
  try {
    loadConfig({ text: YAML.stringify({ nodes: { names }, devices: list }), env: {} });
    return [];
  } catch (err) {
    return ((err as { details?: { problems?: Array<{ path: string; problem: string }> } }).details?.problems ?? []).map((p) => `${p.path}: ${p.problem}`);
  }
}

describe('typed readings (devices: mappings)', () => {
  it('takes a number by regex capture group, with scale and offset', () => {
    const d = compileMappings(devices([{ match: { sender: A }, entities: [{ key: 't', from: { regex: 'temp (\\d+) dF', group: 1 }, scale: 0.5, offset: -16 }] }]), {});
    assert.deepEqual(readingsOf(d, m('temp 100 dF'), true)[0]!.values, { t: 34 });
  });

  it('takes a metadata value and a JSON pointer value, with escapes in the pointer', () => {
    const d = compileMappings(
      devices([
        {
          match: { app_id: 'sensors' },
          entities: [
            { key: 'battery', type: 'integer', from: { metadata: 'bat' } },
            { key: 'hum', from: { json_pointer: '/a~1b/0' } },
          ],
        },
      ]),
      {},
    );
    const r = readingsOf(d, m('{"a/b":[55.5]}', { metadata: { bat: '87.4' } }), true)[0]!;
    assert.deepEqual(r.values, { battery: 87, hum: 55.5 });
    assert.deepEqual(parsePointer('/a~1b/~0'), ['a/b', '~']);
    assert.equal(parsePointer('a'), undefined);
  });

  it('reports each value it cannot take as a mismatch and never throws', () => {
    const d = compileMappings(
      devices([{ match: { app_id: 'sensors' }, entities: [{ key: 'x', from: { json_pointer: '/x' } }, { key: 'y', from: { regex: '(\\w+)' } }] }]),
      {},
    );
    const r = readingsOf(d, m('not json at all'), true)[0]!;
    assert.deepEqual(r.values, {});
    assert.deepEqual(r.mismatches.map((x) => x.key), ['x', 'y']);
    assert.match(r.mismatches[1]!.reason, /not a number/);
  });

  it('matches by friendly name, app id, metadata and a content filter; a claimed sender is refused by default', () => {
    const list = [{ match: { name: 'Kitchen', app_id: 'sensors', metadata: { kind: 'climate' }, content: '^t=' }, entities: [{ key: 't', from: { regex: 't=(\\d+)' } }] }];
    const d = compileMappings(devices(list, { [A]: 'Kitchen' }), { [A]: 'Kitchen' });
    assert.equal(readingsOf(d, m('t=5'), true).length, 0, 'metadata missing');
    assert.deepEqual(readingsOf(d, m('t=5', { metadata: { kind: 'climate' } }), true)[0]!.values, { t: 5 });
    assert.equal(readingsOf(d, m('x=5', { metadata: { kind: 'climate' } }), true).length, 0, 'content filter');
    const claimed = readingsOf(d, m('t=5', { metadata: { kind: 'climate' } }), false)[0]!;
    assert.deepEqual(claimed.values, {});
    assert.match(claimed.mismatches[0]!.reason, /claimed/);
    const open = compileMappings(devices([{ ...list[0], accept_claimed_sender: true }], { [A]: 'Kitchen' }), { [A]: 'Kitchen' });
    assert.deepEqual(readingsOf(open, m('t=5', { metadata: { kind: 'climate' } }), false)[0]!.values, { t: 5 });
  });

  it('refuses bad mappings in --check with the path of each setting, all at once', () => {
    const found = problems([
      {
        match: { name: 'Nobody' },
        entities: [
          { key: 'a', from: { regex: '(unclosed' } },
          { key: 'a', from: { regex: 'no group' } },
          { key: 'c', from: { regex: '(x)', metadata: 'k' } },
          { key: 'd', from: { json_pointer: 'nope' } },
          { key: 'e', type: 'boolean', from: { metadata: 'k' } },
        ],
      },
    ]);
    const paths = found.map((p) => p.split(':')[0]);
    for (const p of [
      'devices[0].match.name',
      'devices[0].entities[0].from.regex',
      'devices[0].entities[1].key',
      'devices[0].entities[1].from.regex',
      'devices[0].entities[3].from.json_pointer',
      'devices[0].entities[4].type',
    ]) assert.ok(paths.includes(p), `${p} in\n${found.join('\n')}`);
    assert.ok(paths.includes('devices[0].entities[2].from'), 'two value sources');
    assert.deepEqual(problems([{ match: { sender: A }, entities: [{ key: 'Bad Key', from: { metadata: 'k' } }] }]).map((p) => p.split(':')[0]), ['devices[0].entities[0].key']);
  });
});
