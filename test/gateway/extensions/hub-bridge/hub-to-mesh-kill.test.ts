/**
 * Hub → mesh across a SIGKILL at the worst instant: right after the hub client committed the message to its inbox
 * (its dedup table), before anything else ran. The gateway is a child process with its sqlite state folder; the dev
 * hub and the tester live in this process and outlive the kill.
 *
 * The hub is not acked before the kill (acks follow the commit by up to 200 ms), so after the restart it replays the
 * message, and the replayed copy is a duplicate for the client: it is not reported again. The message must still
 * reach the mesh, exactly once, from the to-mesh job written in that same commit by the bridge's inbound persister.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { DevHub } from '../../../../devhub';
import { TO_MESH_QUEUE } from '../../../../gateway/extensions/hub-bridge/to-mesh-queue';
import { parseJob } from '../../../../gateway/extensions/hub-bridge/hub-to-mesh';
import { meshIdForHubMessage } from '../../../../gateway/extensions/hub-bridge/message-ids';
import { STORE_FILE } from '../../../../gateway/gateway';
import { createIdMinter } from '../../../../lib/hub/ids';
import { openStore } from '../../../../lib/store';
import { eventually } from '../../support/broker';
import { tempDir } from '../../support/gateway';
import { ALICE, CHAT, Tester, hubSection, startHub } from './support/hub-site';

interface FromChild {
  type: string;
  state?: string;
  messageId?: string;
  replay?: boolean;
  id?: string;
  content?: string;
  toMeshDepth?: number;
}

interface Run {
  child: ChildProcess;
  messages: FromChild[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  next(test: (m: FromChild) => boolean, what: string): Promise<FromChild>;
}

function spawnGateway(configFile: string, env: NodeJS.ProcessEnv): Run {
  const script = path.join(__dirname, 'support', 'inbox-kill-child.js');
  const child = fork(script, [configFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  const messages: FromChild[] = [];
  child.on('message', (m: FromChild) => messages.push(m));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    messages,
    exited,
    next: async (test, what) => {
      await eventually(() => messages.some(test), 20000, what);
      return messages.find(test)!;
    },
  };
}

describe('gateway hub → mesh across a SIGKILL right after the inbox commit (child process, dev hub)', function () {
  this.timeout(60000);
  let hub: DevHub;
  let tester: Tester;
  let dir: string;
  const children: ChildProcess[] = [];

  before(async () => {
    hub = await startHub();
    tester = await Tester.connect(hub);
    dir = tempDir('gw-hub-inbox-kill-');
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await tester.stop();
    await hub.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('brings the message to the mesh exactly once after the restart', async () => {
    const stateDir = path.join(dir, 'state');
    const configFile = path.join(dir, 'gateway.yaml');
    fs.writeFileSync(
      configFile,
      YAML.stringify({
        gateway: { id: 'gw-test', state_dir: stateDir, shutdown_timeout_ms: 1000 },
        log: { level: 'silent' },
        radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice', wire_versions: [1] }] }],
        mesh: { forward: false },
        mqtt: { enabled: false },
        http: { enabled: false },
        hub: hubSection(hub),
      }),
    );
    const hubId = createIdMinter(() => Date.now()).messageId();
    const meshId = meshIdForHubMessage(hubId, ALICE).toString();

    // 1. The gateway that dies by its own hook, at the instant the inbox commit returns.
    const first = spawnGateway(configFile, { CLAWLING_TEST_KILL_AFTER_INBOX: hubId });
    children.push(first.child);
    await first.next((m) => m.type === 'ready', 'the first gateway started');
    await first.next((m) => m.type === 'state' && m.state === 'connected', 'the first gateway connected to the hub');
    await tester.client.send({ chatId: CHAT, text: 'porch light on', messageId: hubId });
    const death = await first.exited;
    assert.equal(death.signal, 'SIGKILL', 'the child killed itself at the hook');
    assert.ok(!first.messages.some((m) => m.type === 'message' && m.messageId === hubId), 'killed before any listener heard of the message');

    // 2. What the kill left on disk: the inbox has the message (a replay is now a duplicate), and so has the to-mesh queue.
    const store = openStore(path.join(stateDir, STORE_FILE));
    try {
      assert.ok(store.inbox.get(hubId), 'the inbox row is committed');
      const jobs = store.queue(TO_MESH_QUEUE).peek().map((row) => parseJob(row.value));
      assert.deepEqual(jobs.map((j) => [j?.hubMessageId, j?.recipient, j?.text]), [[hubId, ALICE, 'porch light on']], 'the to-mesh job is in the same commit');
    } finally {
      store.close();
    }

    // 3. The restarted gateway: the hub replays the message, the client drops it as a duplicate, the job delivers it.
    const second = spawnGateway(configFile, {});
    children.push(second.child);
    await second.next((m) => m.type === 'ready', 'the second gateway started');
    await second.next((m) => m.type === 'mesh' && m.id === meshId, 'the message at alice');
    await second.next((m) => m.type === 'state' && m.state === 'connected', 'the second gateway finished its replay');
    second.child.send({ type: 'report' });
    const report = await second.next((m) => m.type === 'report', 'the to-mesh queue drained');
    assert.equal(report.toMeshDepth, 0);
    assert.ok(
      second.messages.some((m) => m.type === 'frame' && m.messageId === hubId && m.replay === true),
      'the hub replayed the message (it had not been acked before the kill)',
    );
    assert.ok(!second.messages.some((m) => m.type === 'message' && m.messageId === hubId), 'and the replayed copy was a duplicate for the client');
    const atAlice = [...first.messages, ...second.messages].filter((m) => m.type === 'mesh' && m.id === meshId);
    assert.equal(atAlice.length, 1, 'alice got the message exactly once');
    assert.equal(atAlice[0]!.content, 'porch light on');

    second.child.kill('SIGTERM');
    const end = await second.exited;
    assert.equal(end.code, 0, 'the second gateway stopped cleanly');
  });
});
