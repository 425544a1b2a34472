/**
 * The gateway-daemon v1 path against the radio path, in one gateway in one process: frames to a simulated-radio
 * neighbour submitted by an attached device over the daemon's TCP wire (JSON line, base64, decode, reachability,
 * router, verdict back) beside the same number of frames injected by another neighbour on the simulated radio
 * (the simulated link's inbound side, fragments and its latency, then the router): the baseline. Also attaches per second (challenge, Ed25519 verify, bind), sequential.
 * Figures are rates over the whole batch, so they include the client's own work; read the ratio, not the absolute.
 *
 *   npm run bench:daemon
 */
import fs from 'node:fs';
import { generateControlIdentity } from '../lib/mesh/control-signature';
import { encodeFrame } from '../lib/mesh/frame';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import type { GatewayDaemon } from '../gateway/extensions/daemon';
import { DaemonClient } from '../test/support/gateway-daemon-client';
import { startGateway } from '../test/gateway/support/gateway';

/** Within the simulated radio's per-peer queue (1024 frames), so that neither path drops any. */
const N = 800;
const ATTACHES = 300;

function frame(sender: string, recipient: string, i: number): Uint8Array {
  return encodeFrame(
    createMessage({
      id: MessageId.random(),
      sender,
      recipient,
      app_id: 'bench',
      priority: 'medium',
      ttl: 8,
      hop_count: 0,
      timestamp: BigInt(Date.now()),
      content: `bench ${i}`,
      requires_ack: false,
    }),
    'json',
  );
}

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function main(): Promise<void> {
  // The gateway's timers are unref'd (a service must not be held up by them); this one keeps the bench alive.
  const keepAlive = setInterval(() => undefined, 1000);
  const gw = await startGateway(undefined, {
    daemon: { enabled: true, listen: '127.0.0.1:0', submit_burst: 100000, submit_rate_per_s: 100000, bytes_burst: 1073741824, bytes_per_s: 1073741824 },
    http: { enabled: false },
  });
  try {
    const port = gw.gateway.extension<GatewayDaemon>('daemon')!.address!.port;
    const alice = gw.peer('sim0', 'alice');
    const bob = gw.peer('sim0', 'bob');
    alice.setAutoAck(false);

    // Baseline: bob → alice through the router.
    const bobFrames = Array.from({ length: N }, (_, i) => frame(bob.address, alice.address, i));
    alice.clearReceived();
    let t0 = process.hrtime.bigint();
    for (const f of bobFrames) void bob.inject(f);
    await until(() => alice.receipts().length >= N, 'the radio baseline');
    const radioRate = N / (Number(process.hrtime.bigint() - t0) / 1e9);

    // The daemon: a device → alice, every verdict back.
    const c = await DaemonClient.connect(port);
    const { identity } = await c.attach(generateControlIdentity().privateKey);
    const lines = Array.from({ length: N }, (_, i) => `${JSON.stringify({ type: 'SendMessage', recipient: alice.address, content: Buffer.from(frame(identity.address, alice.address, i)).toString('base64'), encoding: 'base64', message_id: `b${i}` })}\n`);
    alice.clearReceived();
    const before = c.received.length;
    t0 = process.hrtime.bigint();
    c.writeRaw(lines.join(''));
    await until(() => c.received.length - before >= N && alice.receipts().length >= N, 'the daemon batch');
    const daemonRate = N / (Number(process.hrtime.bigint() - t0) / 1e9);
    const sent = c.received.slice(before).filter((m) => m.type === 'MessageSent').length;
    c.close();

    // Attaches, one after another on fresh connections.
    t0 = process.hrtime.bigint();
    for (let i = 0; i < ATTACHES; i++) {
      const d = await DaemonClient.connect(port);
      await d.attach(generateControlIdentity().privateKey);
      d.close();
    }
    const attachRate = ATTACHES / (Number(process.hrtime.bigint() - t0) / 1e9);

    console.log(`gateway-daemon bench (${N} frames of ~${bobFrames[0].length} B, JSON floor, to a simulated-radio neighbour)`);
    console.log(`  baseline: radio neighbour (simulated link) → router → neighbour   ${radioRate.toFixed(0).padStart(8)} frames/s`);
    console.log(`  daemon:   device → TCP → router → neighbour, verdict back         ${daemonRate.toFixed(0).padStart(8)} frames/s   (${(daemonRate / radioRate).toFixed(2)}× baseline; ${sent}/${N} MessageSent)`);
    console.log(`  attaches: Identify → DeclareAddress → connected                  ${attachRate.toFixed(0).padStart(8)} /s (sequential, fresh connection and key each)`);
  } finally {
    await gw.stop();
    fs.rmSync(gw.dir, { recursive: true, force: true });
    clearInterval(keepAlive);
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
