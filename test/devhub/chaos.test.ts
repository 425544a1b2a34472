import assert from 'node:assert/strict';
import { startDevHub, type DevHub } from '../../devhub';
import { BASE_OPTIONS, TestClient, type Frame } from './support';

/**
 * A minimal reliable peer over the bare client: an outbox resent with the same ids after every reconnect, receipt by
 * message_id, and an ack (v2 sync_ack or v1 cursor_ack) right after recording. Enough to prove the hub side: whatever
 * the drops, every message arrives and nothing else does (a redelivery is legal and collapses by id).
 */
class Peer {
  readonly received = new Map<string, number>();
  private readonly outbox = new Map<string, string>();
  private client: TestClient | undefined;
  private stopped = false;
  connections = 0;

  constructor(
    private readonly hub: DevHub,
    private readonly token: string,
    private readonly caps: Record<string, boolean>,
  ) {}

  async start(): Promise<void> {
    let retryMs = 1;
    while (!this.stopped) {
      let client: TestClient;
      try {
        client = await TestClient.open(this.hub.wsUrl);
      } catch {
        // Never a hot loop: once the hub is gone (a test that failed, the hook stopping it) a spinning peer would
        // starve every test that runs after this one in the same process.
        await new Promise((r) => setTimeout(r, retryMs));
        retryMs = Math.min(100, retryMs * 2);
        continue;
      }
      retryMs = 1;
      if (this.stopped) {
        client.ws.terminate();
        return;
      }
      this.client = client;
      // Every frame is handled as it arrives, replay included: under legacy delivery a written frame counts as delivered.
      const onFrame = (f: Frame): void => {
        if (f.event === 'connect.challenge') {
          client.send({ version: '2', event: 'connect', trace_id: 'c', emitted_at: 1, payload: { token: this.token, nonce: f.payload.nonce, device_id: 'dev', capabilities: this.caps } });
        } else if (f.event === 'hello-ok') {
          client.epoch = f.payload.ack_epoch;
          this.connections++;
          for (const [id, text] of this.outbox) this.sendRaw(id, text);
        }
        if (f.event === 'message.send') this.received.set(f.payload.message_id, (this.received.get(f.payload.message_id) ?? 0) + 1);
        if (f.event === 'message.ack') this.outbox.delete(f.payload.message_id);
        if (typeof f.dseq === 'number') client.ackDseq(f);
        else if (typeof f.seq === 'number') client.send({ version: '2', event: 'message.cursor_ack', trace_id: 'ca', emitted_at: 1, payload: { seq: f.seq } });
      };
      client.ws.on('message', (d: Buffer) => onFrame(JSON.parse(d.toString()) as Frame));
      // The challenge can arrive with the upgrade response, before this listener existed.
      for (const f of client.queue.splice(0)) onFrame(f);
      await client.closed;
    }
  }

  private sendRaw(id: string, text: string): void {
    this.client?.send({ version: '2', event: 'message.send', trace_id: id, emitted_at: 1, chat_id: 'chat-ab', payload: { message_id: id, message: { body: { fragments: [{ kind: 'text', text }] }, context: {} } } });
  }

  send(id: string): void {
    this.outbox.set(id, id);
    this.sendRaw(id, id);
  }

  get pending(): number {
    return this.outbox.size;
  }

  stop(): void {
    this.stopped = true;
    this.client?.ws.terminate();
  }
}

for (const [name, caps] of [
  ['v2 dseq acks', { reliable_delivery: true, reliable_delivery_v2: true }],
  ['v1 cursor acks', { reliable_delivery: true }],
  ['legacy advance-on-write', {}],
] as const) {
  describe(`devhub under connection drops (${name})`, () => {
    let hub: DevHub;
    const peers: Peer[] = [];
    beforeEach(async () => {
      hub = await startDevHub(BASE_OPTIONS);
    });
    // Peers stop whatever happened in the test, before the hub: nothing of this test outlives it.
    afterEach(async () => {
      for (const p of peers.splice(0)) p.stop();
      await hub.stop();
    });

    it('delivers 2 × 400 messages, none lost, while the connections are killed 30 times mid-stream', async function () {
      this.timeout(30_000);
      const alice = new Peer(hub, 'ta', caps);
      const bob = new Peer(hub, 'tb', caps);
      peers.push(alice, bob);
      void alice.start();
      void bob.start();
      const total = 400;
      const batch = 10;
      let drops = 0;
      let hellos = 0;
      hub.admin.on('hello', () => hellos++);
      for (let i = 0; i < total; i += batch) {
        for (let j = i; j < i + batch; j++) {
          alice.send(`msg-a-${j}`);
          bob.send(`msg-b-${j}`);
        }
        if ((i / batch) % 4 === 3) continue; // some batches flow undisturbed
        const victim = (i / batch) % 2 === 0 ? 'usr_a' : 'usr_b';
        // The peer reconnects at once; the wait is on the event, bounded only by the test's own timeout.
        const back = hub.admin.waitFor('hello', (d) => d.user_id === victim, 30_000);
        // Mid-stream drops (after a few frames) alternate with drops at once.
        drops += hub.admin.dropConnection({ user_id: victim }, { after_frames: (i / batch) % 3 === 0 ? 0 : 3 });
        await back;
      }
      await waitUntil(() => alice.received.size === total && bob.received.size === total && alice.pending === 0 && bob.pending === 0);
      alice.stop();
      bob.stop();
      assert.ok(drops >= 25, `${drops} connections dropped`);
      assert.ok(hellos >= drops + 2, `${hellos} handshakes for ${drops} drops`);
      assert.deepEqual([...alice.received.keys()].sort(), Array.from({ length: total }, (_, i) => `msg-b-${i}`).sort());
      assert.deepEqual([...bob.received.keys()].sort(), Array.from({ length: total }, (_, i) => `msg-a-${i}`).sort());
    });
  });
}

async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}
