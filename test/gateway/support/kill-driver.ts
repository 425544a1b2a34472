/**
 * The sending phone of the SIGKILL tests: drives a gateway child (`kill-child.js`, the real `runGateway` with its
 * simulated peer `src` on IPC) with `total` numbered mesh messages, keeps `window` of them outstanding, resends
 * whatever waited `resendAfterMs` without its ACK (as a mesh node does, across every restart), and SIGKILLs the
 * child `kills` times at spread-out points of the ACK count. Each test brings what it checks: which id an ACK is
 * for and what must already hold when it arrives.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { encodeFrame } from '../../../lib/mesh/frame';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { identityFromSeed } from '../../../gateway/radios';

export interface KillRun {
  configFile: string;
  total: number;
  kills: number;
  window: number;
  resendAfterMs: number;
  /** Eight bytes that make this test's message ids its own. */
  idPrefix: string;
  appId: string;
  /** Varies the kill points, so that they do not all fall on round ACK counts. */
  jitter: (kill: number) => number;
  /** Called for each ACK, before anything else happens: the place for "the broker/hub had it already". */
  onAck?: (index: number, id: MessageId) => void;
  /** The child currently running, for the test's cleanup. */
  onSpawn?: (child: ChildProcess) => void;
}

/** The id of message `index` of a run: a version 4 UUID with the prefix and the index in it. */
export function killRunId(idPrefix: string, index: number): MessageId {
  const bytes = Buffer.alloc(16);
  bytes.write(idPrefix, 0, 8, 'latin1');
  bytes.writeUInt32BE(index, 12);
  bytes[6] = 0x40 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return MessageId.fromBytes(bytes);
}

/** Runs until every message is ACKed; resolves with the number of kills, rejects if the gateway ends by itself. */
export function driveThroughKills(run: KillRun): Promise<{ kills: number }> {
  const script = path.join(__dirname, 'kill-child.js');
  const sender = identityFromSeed('clawling-sim:sim0:src').address;
  const killAt = Array.from({ length: run.kills }, (_, k) => Math.round(((k + 1) * run.total) / (run.kills + 1)) + run.jitter(k));
  const frames = new Map<number, string>();
  const acked = new Set<number>();
  const outstanding = new Map<number, number>();
  let address = '';
  let child: ChildProcess | undefined;
  let ready = false;
  let next = 0;
  let kills = 0;

  const frameFor = (i: number): string => {
    let f = frames.get(i);
    if (f === undefined) {
      const m = createMessage({
        id: killRunId(run.idPrefix, i),
        sender,
        recipient: address,
        app_id: run.appId,
        priority: 'medium',
        ttl: 8,
        hop_count: 0,
        timestamp: BigInt(1_700_000_000_000 + i),
        content: `message ${i}`,
      });
      f = Buffer.from(encodeFrame(m, 'binary')).toString('base64');
      frames.set(i, f);
    }
    return f;
  };

  const pump = (): void => {
    if (!ready || !child) return;
    const now = Date.now();
    const batch: string[] = [];
    for (const [i, at] of outstanding) {
      if (now - at <= run.resendAfterMs) continue;
      batch.push(frameFor(i));
      outstanding.set(i, now);
    }
    while (outstanding.size < run.window && next < run.total) {
      batch.push(frameFor(next));
      outstanding.set(next, now);
      next += 1;
    }
    if (batch.length > 0) child.send({ type: 'frames', frames: batch });
  };

  return new Promise<{ kills: number }>((resolve, reject) => {
    const ticker = setInterval(pump, 200);
    const end = (err?: Error): void => {
      clearInterval(ticker);
      if (err) reject(err);
      else resolve({ kills });
    };
    const spawn = (): void => {
      ready = false;
      const c = fork(script, [run.configFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      child = c;
      run.onSpawn?.(c);
      // A gateway that ends by itself (not by our SIGKILL) is a failure, not something to wait out.
      c.once('exit', (code, signal) => {
        if (signal !== 'SIGKILL') end(new Error(`the gateway ended by itself (code ${code}, signal ${signal})`));
      });
      c.on('message', (m: { type: string; address?: string; ids?: string[] }) => {
        if (m.type === 'ready') {
          address = m.address!;
          ready = true;
          // A restarted gateway knows nothing of what it was sent: resend everything still outstanding now.
          for (const i of outstanding.keys()) outstanding.set(i, 0);
          pump();
          return;
        }
        if (m.type !== 'acks') return;
        for (const id of m.ids!) {
          const i = Number.parseInt(id.replace(/-/g, '').slice(-8), 16);
          run.onAck?.(i, killRunId(run.idPrefix, i));
          acked.add(i);
          outstanding.delete(i);
        }
        if (acked.size === run.total) {
          end();
          return;
        }
        if (kills < run.kills && acked.size >= killAt[kills]!) {
          kills += 1;
          ready = false;
          c.removeAllListeners('message');
          c.removeAllListeners('exit');
          c.once('exit', () => spawn());
          c.kill('SIGKILL');
          return;
        }
        pump();
      });
    };
    spawn();
  });
}
