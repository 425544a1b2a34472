/**
 * The gateway as a child process for the hub → mesh crash test: the real `runGateway` (config file, sqlite state
 * folder, hub bridge) with one simulated radio whose virtual peer `alice` is the bridge's mesh recipient.
 *
 * With `CLAWLING_TEST_KILL_AFTER_INBOX=<hub message_id>` the child SIGKILLs itself at the instant the store
 * transaction that inserted that message into the hub client's inbox returns, i.e. once it is committed and before
 * anything after the commit runs (no effect, no `message` listener). That is exactly the window a consumer writing
 * its own record from a `message` listener would lose the message in. The hook wraps the methods of the one real
 * store object the gateway and its hub client share; nothing in production code knows about it.
 *
 * IPC to the parent: `ready`, `state` (hub client), `frame` (every materialized message frame the client received,
 * with `replay`), `message` (what the client reported), `mesh` (every message alice received). On `report` it
 * waits until the to-mesh queue is empty and answers with its depth.
 */
import { runGateway } from '../../../../../gateway/main';
import type { HubBridge } from '../../../../../gateway/extensions/hub-bridge/hub-bridge';
import type { SimulatedRadio } from '../../../../../gateway/radios';
import { isAck } from '../../../../../lib/mesh/ack';
import type { Store, TransactionOptions, UpsertOutcome } from '../../../../../lib/store';

const configFile = process.argv[2];
if (!configFile || !process.send) throw new Error('usage: inbox-kill-child <config.yaml> (with an IPC channel)');
const send = (m: Record<string, unknown>): void => {
  process.send!(m);
};

function killRightAfterInboxCommit(store: Store, messageId: string): void {
  const inbox = store.inbox;
  const upsert = inbox.upsert.bind(inbox);
  let inserted = false;
  inbox.upsert = (row): UpsertOutcome => {
    const outcome = upsert(row);
    if (row.messageId === messageId && outcome === 'inserted') inserted = true;
    return outcome;
  };
  const transaction = store.transaction.bind(store);
  let depth = 0;
  store.transaction = <T>(fn: () => T, options?: TransactionOptions): T => {
    depth += 1;
    let result: T;
    try {
      result = transaction(fn, options);
    } catch (err) {
      depth -= 1;
      if (depth === 0) inserted = false;
      throw err;
    }
    depth -= 1;
    if (depth === 0 && inserted) process.kill(process.pid, 'SIGKILL');
    return result;
  };
}

void runGateway({
  configFile,
  env: {},
  stderr: process.stderr,
  onStarted: (gateway) => {
    const bridge = gateway.extension<HubBridge>('hub-bridge')!;
    const client = bridge.client;
    const killAfter = process.env.CLAWLING_TEST_KILL_AFTER_INBOX;
    if (killAfter) killRightAfterInboxCommit(client.store, killAfter);
    const alice = (gateway.radios[0] as SimulatedRadio).virtualPeer('alice')!;
    alice.on('received', (r) => {
      if (r.message && !isAck(r.message)) send({ type: 'mesh', id: r.message.id.toString(), content: r.message.content });
    });
    client.on('frame', (f) => {
      if ((f.event === 'message.send' || f.event === 'message.reply') && f.messageId !== undefined) send({ type: 'frame', messageId: f.messageId, replay: f.replay });
    });
    client.on('message', (m) => send({ type: 'message', messageId: m.messageId }));
    client.on('state', (s) => send({ type: 'state', state: s.state }));
    process.on('message', (m: { type: string }) => {
      if (m.type !== 'report') return;
      void Promise.all([bridge.whenToMeshEmpty(), client.idle()]).then(() => send({ type: 'report', toMeshDepth: bridge.toMeshDepth }));
    });
    send({ type: 'ready', address: gateway.info.address, state: client.state });
  },
}).then((code) => process.exit(code));
