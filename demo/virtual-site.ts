/**
 * Life on the demo's mesh: the kitchen reports its temperature and the garden its soil moisture every few seconds,
 * and every node answers what the gateway brings it (from MQTT or from the hub), so each path of the example flow
 * shows traffic both ways. What happens is printed one line per event; a message that went the whole loop (mesh →
 * MQTT + hub → Node-RED → hub → mesh) is announced as such.
 *
 * The nodes are the simulated radios' virtual peers, or with `--virtual-ble` the BLE phones (ble-phone-peer.ts):
 * both are a `DemoPeer`.
 */
import { isAck } from '../lib/mesh/ack';
import type { MeshMessage } from '../lib/mesh/message';
import type { Gateway } from '../gateway/gateway';
import type { SimulatedRadio } from '../gateway/radios';
import { DEMO } from './settings';

/** What a node of the demo received from the gateway (`message` absent when the frame did not decode). */
export interface DemoReceipt {
  message?: MeshMessage;
}

/** A node of the demo's mesh: it talks to the gateway and hears what the gateway sends it. */
export interface DemoPeer {
  readonly id: string;
  readonly address: string;
  /** A text message to the gateway (`requires_ack`, as the reference sends). */
  say(text: string): Promise<unknown>;
  on(event: 'received', listener: (receipt: DemoReceipt) => void): unknown;
  off(event: 'received', listener: (receipt: DemoReceipt) => void): unknown;
}

/** The virtual peers of the gateway's simulated radios. */
export function simulatedPeers(gateway: Gateway): DemoPeer[] {
  return gateway.radios.flatMap((r) => (r.kind === 'simulated' ? (r as SimulatedRadio).virtualPeers() : []));
}

interface Talker {
  peer: string;
  firstMs: number;
  everyMs: number;
  say(n: number): string;
}

const TALKERS: readonly Talker[] = [
  { peer: 'kitchen', firstMs: 1500, everyMs: 6000, say: (n) => `temperature ${(21 + Math.sin(n / 3) * 1.5).toFixed(1)} °C` },
  { peer: 'garden', firstMs: 4000, everyMs: 9000, say: (n) => `soil moisture ${Math.round(40 + Math.cos(n / 4) * 12)} %` },
];

export class VirtualSite {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly detach: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly peers: readonly DemoPeer[],
    private readonly print: (line: string) => void,
  ) {}

  start(): void {
    for (const peer of this.peers) {
      const onReceived = (r: DemoReceipt): void => this.received(peer, r);
      peer.on('received', onReceived);
      this.detach.push(() => peer.off('received', onReceived));
    }
    for (const t of TALKERS) {
      const peer = this.peers.find((p) => p.id === t.peer);
      if (!peer) continue;
      let n = 0;
      const tick = (): void => {
        if (this.stopped) return;
        n += 1;
        const text = t.say(n);
        this.print(`[mesh]   ${peer.id} → gateway: ${text}`);
        peer.say(text).catch(() => undefined);
        this.schedule(tick, t.everyMs);
      };
      this.schedule(tick, t.firstMs);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const d of this.detach.splice(0)) d();
  }

  private schedule(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private received(peer: DemoPeer, r: DemoReceipt): void {
    const m = r.message;
    if (this.stopped || !m || isAck(m) || m.recipient !== peer.address) return;
    if (m.content_type === 'file_chunk') {
      this.print(`[mesh]   ${peer.id} received a file chunk (${m.binary_content?.length ?? 0} bytes)`);
      return;
    }
    this.print(`[mesh]   ${peer.id} received “${m.content}” ${via(m)}`);
    if (m.metadata.get('hub_sender') === DEMO.nodeRedUser) {
      this.print(`[loop]   mesh → MQTT + hub → Node-RED → hub → mesh: ${peer.id} got “${m.content}”`);
    }
    // Every node answers the gateway; answers are never answered again, so nothing ping-pongs.
    const answer = `${peer.id} here, got “${m.content}”`;
    this.schedule(() => {
      this.print(`[mesh]   ${peer.id} → gateway: ${answer}`);
      peer.say(answer).catch(() => undefined);
    }, 300);
  }
}

function via(m: MeshMessage): string {
  const sender = m.metadata.get('hub_sender_name') ?? m.metadata.get('hub_sender');
  return sender !== undefined ? `(from ${sender} on the hub)` : '(from MQTT)';
}
