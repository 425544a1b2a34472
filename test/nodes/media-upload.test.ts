/**
 * The media-upload node in Node-RED 4.1 (test helper) against the dev hub's media service, with the real hub-config
 * node supplying the media URL and the token.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startDevHub, type DevHub } from '../../devhub';
import { nextMessage, probedFlow, probes, useNodeRed, type TestNode } from '../support/node-red';
import * as fx from '../lib/media/fixtures';
import { coreNode } from '../support/node-red-package';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const hubConfigNode = require('../../nodes/hub-config');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mediaUploadNode = require('../../nodes/media-upload');
const catchNode = coreNode('core/common/25-catch.js');
const statusNode = coreNode('core/common/25-status.js');
const NODES = [hubConfigNode, mediaUploadNode, catchNode, statusNode];

const TOKEN = 't-node';

interface Captured {
  payload?: Record<string, unknown>;
  error?: { code?: string; message?: string; source?: { id?: string } };
  status?: { text?: string; fill?: string };
  [key: string]: unknown;
}

type Flow = Parameters<ReturnType<typeof useNodeRed>['load']>[1];

describe('media-upload node', function () {
  this.timeout(30_000);
  const helper = useNodeRed();
  let hub: DevHub;
  let dir: string;

  before(async () => {
    hub = await startDevHub({ users: [{ id: 'usr_node', token: TOKEN }] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-node-'));
  });
  after(async () => {
    await hub.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** hub-config → media-upload, probed by `probedFlow`. */
  async function load(upload: Record<string, unknown> = {}, token = TOKEN): Promise<Record<'up' | 'out' | 'caught' | 'statuses', TestNode<Captured>>> {
    const flow = probedFlow({ id: 'up', type: 'media-upload', hub: 'cfg', ...upload }, [{ id: 'cfg', type: 'hub-config', url: hub.wsUrl, mediaUrl: hub.mediaUrl }]);
    await helper.load(NODES, flow as Flow, { cfg: { token } });
    return probes<'up', Captured>(helper, 'up');
  }

  it('uploads a Buffer payload and sends the enriched fragment in msg.payload, keeping the rest of msg', async () => {
    const n = await load();
    const bytes = fx.png(33, 17);
    const output = nextMessage<Captured>(n.out);
    n.up.receive({ payload: bytes, name: 'dot.png', topic: 'camera/door' });
    const msg = await output;
    assert.equal(msg.topic, 'camera/door');
    const { url, ...rest } = msg.payload as Record<string, unknown>;
    assert.deepEqual(rest, { kind: 'image', name: 'dot.png', mime: 'image/png', size: bytes.length, width: 33, height: 17 });
    assert.ok(hub.admin.media().some((m) => m.url === url));
  });

  it('streams msg.filename from disk, with msg.mime and msg.name as overrides', async () => {
    const file = path.join(dir, 'rec-0001.bin');
    await writeFile(file, fx.oggOpus(2000));
    const n = await load();
    const output = nextMessage<Captured>(n.out);
    n.up.receive({ filename: file, mime: 'audio/ogg', name: 'voice.opus' });
    const fragment = (await output).payload as Record<string, unknown>;
    assert.deepEqual([fragment.kind, fragment.name, fragment.mime, fragment.duration], ['audio', 'voice.opus', 'audio/ogg', 2000]);
  });

  it('beside a Buffer, msg.filename only names the file (as the read-file node sends it)', async () => {
    const n = await load();
    const output = nextMessage<Captured>(n.out);
    n.up.receive({ payload: fx.mp4({ durationMs: 1000, width: 64, height: 48 }), filename: '/nowhere/clip.mp4' });
    const fragment = (await output).payload as Record<string, unknown>;
    assert.deepEqual([fragment.kind, fragment.name, fragment.width, fragment.duration], ['video', 'clip.mp4', 64, 1000]);
  });

  it('shows progress, then the count, in its status', async () => {
    const n = await load();
    const texts: string[] = [];
    n.statuses.on('input', (m) => texts.push(String((m as Captured).status?.text)));
    const output = nextMessage<Captured>(n.out);
    n.up.receive({ payload: Buffer.alloc(2 * 1024 * 1024, 5), name: 'blob.bin' });
    await output;
    await new Promise((r) => setImmediate(r));
    assert.ok(texts.some((t) => t.startsWith('media-upload.status.uploading')), texts.join(' | '));
    assert.match(texts.at(-1) ?? '', /^1 media-upload\.status\.uploaded$/);
  });

  it('a bad token reaches a Catch node as UNAUTHORIZED, and the token appears nowhere', async () => {
    const n = await load({}, 'wrong-secret-456');
    const caught = nextMessage<Captured>(n.caught);
    const statuses: string[] = [];
    n.statuses.on('input', (m) => statuses.push(JSON.stringify(m)));
    n.up.receive({ payload: fx.png(1, 1) });
    const msg = await caught;
    assert.equal(msg.error?.code, 'UNAUTHORIZED');
    assert.equal(msg.error?.source?.id, 'up');
    await new Promise((r) => setImmediate(r));
    assert.ok(statuses.some((s) => s.includes('UNAUTHORIZED')));
    assert.ok(!JSON.stringify(msg).includes('wrong-secret-456'));
    assert.ok(!statuses.join('').includes('wrong-secret-456'));
  });

  it('a file above the size limit is refused before sending (TOO_LARGE)', async () => {
    const n = await load({ maxMiB: 1 });
    const stored = hub.admin.media().length;
    const caught = nextMessage<Captured>(n.caught);
    n.up.receive({ payload: Buffer.alloc(1024 * 1024 + 1) });
    assert.equal((await caught).error?.code, 'TOO_LARGE');
    assert.equal(hub.admin.media().length, stored);
  });

  it('a message with neither a Buffer nor a filename is BAD_INPUT', async () => {
    const n = await load();
    const caught = nextMessage<Captured>(n.caught);
    n.up.receive({ payload: 'not bytes' });
    assert.equal((await caught).error?.code, 'BAD_INPUT');
  });

  it('a mismatched MIME type warns and still uploads as declared', async () => {
    const n = await load();
    const warned = new Promise<string>((resolve) => n.up.on('call:warn', (call) => resolve(String((call as { args: unknown[] }).args[0]))));
    const output = nextMessage<Captured>(n.out);
    n.up.receive({ payload: fx.EXE, mime: 'image/png', name: 'cat.png' });
    assert.match(await warned, /MIME_MISMATCH/);
    assert.equal(((await output).payload as Record<string, unknown>).mime, 'image/png');
  });

  it('without a hub-config it fails with NO_HUB_CONFIG', async () => {
    const at = { z: 'tab', x: 100, y: 100 };
    await helper.load(NODES, [
      { id: 'tab', type: 'tab' },
      { id: 'up', type: 'media-upload', ...at, hub: '', wires: [[]] },
      { id: 'catch', type: 'catch', ...at, scope: ['up'], wires: [['caught']] },
      { id: 'caught', type: 'helper', ...at },
    ] as Flow);
    const caught = nextMessage<Captured>(helper.getNode('caught') as unknown as TestNode<Captured>);
    (helper.getNode('up') as unknown as TestNode<Captured>).receive({ payload: fx.png(1, 1) });
    assert.equal((await caught).error?.code, 'NO_HUB_CONFIG');
  });
});
