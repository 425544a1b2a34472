/**
 * The behaviour every radio owes the router, run against each implementation (simulated, serial over
 * @serialport/binding-mock, BLE over a fake noble binding): open, peer up, frame in, frame out, backpressure,
 * close, peer loss and return. Each harness drives its own kind of link; the assertions are the same.
 */
import assert from 'node:assert/strict';
import type { PeerEvent, Radio, RadioStatus } from '../../../../gateway/radios/radio';
import { RadioError } from '../../../../gateway/radios/radio';
import { bigFrame, frameOf, hexOf } from './frames';
import type { ManualClock } from './manual-clock';
import { settle } from './manual-clock';

export interface HarnessPeer {
  /** The peer id the radio reports for the device at the other end. */
  readonly id: string;
  /** The device sends one whole frame to the gateway. */
  sendToGateway(frame: Uint8Array): Promise<void>;
  /** Whole frames the device has received from the gateway, in order. */
  receivedFrames(): Uint8Array[];
  /** Make the link stop completing writes / let it go again. */
  stall(): void;
  unstall(): Promise<void>;
  /** The device goes away (out of range, unplugged) / comes back. */
  lose(): Promise<void>;
  restore(): Promise<void>;
}

export interface RadioHarness {
  radio: Radio;
  clock: ManualClock;
  peer: HarnessPeer;
  /** What the peer event must say about the device once it is up. */
  expected: { address?: string; wireVersions: number[] };
  cleanup(): Promise<void>;
}

export type HarnessFactory = (options: { queueLimit: number }) => Promise<RadioHarness>;

/** Resolves with the first event matching `predicate`; the listener is registered before `trigger` runs. */
export function nextEvent<K extends 'peer' | 'status'>(
  radio: Radio,
  event: K,
  predicate: (payload: K extends 'peer' ? PeerEvent : RadioStatus) => boolean,
): Promise<K extends 'peer' ? PeerEvent : RadioStatus> {
  return new Promise((resolve) => {
    const listener = (payload: PeerEvent | RadioStatus): void => {
      if (!predicate(payload as K extends 'peer' ? PeerEvent : RadioStatus)) return;
      radio.off(event, listener as never);
      resolve(payload as K extends 'peer' ? PeerEvent : RadioStatus);
    };
    radio.on(event, listener as never);
  });
}

/** Waits until the peer is listed as connected (it may already be). */
export async function peerConnected(radio: Radio, peerId: string): Promise<void> {
  if (radio.peers().some((p) => p.id === peerId && p.connected)) return;
  await nextEvent(radio, 'peer', (p) => p.id === peerId && p.change === 'up');
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<RadioError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RadioError, `expected RadioError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected rejection with ${code}`);
}

/** Observe a promise's outcome from now on, so a rejection that comes before the test looks is not "unhandled". */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

export function radioConformanceSuite(kind: string, create: HarnessFactory): void {
  describe(`Radio conformance: ${kind}`, () => {
    let h: RadioHarness | undefined;

    afterEach(async () => {
      await h?.cleanup();
      h = undefined;
    });

    async function openWithPeer(queueLimit = 8): Promise<RadioHarness> {
      h = await create({ queueLimit });
      const up = nextEvent(h.radio, 'peer', (p) => p.change === 'up');
      await h.radio.open();
      await up;
      return h;
    }

    it('opens to ready, reports the peer up with its facts, and closes to stopped', async () => {
      h = await create({ queueLimit: 8 });
      const statuses: RadioStatus[] = [];
      h.radio.on('status', (s) => statuses.push(s));
      const up = nextEvent(h.radio, 'peer', (p) => p.change === 'up');
      await h.radio.open();
      const peer = await up;
      assert.equal(peer.radioId, h.radio.id);
      assert.equal(peer.id, h.peer.id);
      assert.equal(peer.connected, true);
      assert.deepEqual(peer.wireVersions, h.expected.wireVersions);
      if (h.expected.address !== undefined) assert.equal(peer.address, h.expected.address);
      assert.equal(h.radio.status().state, 'ready');
      assert.equal(h.radio.status().peers, 1);
      assert.ok(statuses.some((s) => s.state === 'starting'), 'reported starting');
      assert.ok(statuses.some((s) => s.state === 'ready'), 'reported ready');
      assert.deepEqual(h.radio.peers().map((p) => [p.id, p.connected]), [[h.peer.id, true]]);
      await h.radio.open(); // idempotent
      await h.radio.close();
      assert.equal(h.radio.status().state, 'stopped');
      assert.equal(statuses.at(-1)?.state, 'stopped');
      await h.radio.close(); // idempotent
    });

    it('delivers whole inbound frames, JSON and binary, with radio, peer and receive time', async () => {
      const { radio, peer, clock } = await openWithPeer();
      const frames: Array<{ frame: Uint8Array; peerId: string; radioId: string; receivedAt: number }> = [];
      radio.on('frame', (f) => frames.push(f));
      const json = frameOf('hello over json', 'json');
      const binary = frameOf('hello over binary', 'binary');
      const big = bigFrame(6000);
      await peer.sendToGateway(json);
      await peer.sendToGateway(binary);
      await peer.sendToGateway(big);
      await settle();
      assert.deepEqual(frames.map((f) => hexOf(f.frame)), [json, binary, big].map(hexOf));
      for (const f of frames) {
        assert.equal(f.radioId, radio.id);
        assert.equal(f.peerId, peer.id);
        assert.equal(f.receivedAt, clock.now());
      }
      assert.equal(radio.status().counters?.framesIn, 3);
    });

    it('writes whole frames out, in order, and resolves once written', async () => {
      const { radio, peer } = await openWithPeer();
      const frames = [frameOf('one', 'json'), frameOf('two', 'binary'), bigFrame(20_000)];
      await Promise.all(frames.map((f) => radio.send(peer.id, f)));
      assert.deepEqual(peer.receivedFrames().map(hexOf), frames.map(hexOf));
      assert.equal(radio.status().counters?.framesOut, 3);
    });

    it('refuses what it cannot send with a coded error', async () => {
      const { radio, peer } = await openWithPeer();
      await rejectsWith(radio.send('no-such-peer', frameOf('x')), 'PEER_UNKNOWN');
      await rejectsWith(radio.send(peer.id, new Uint8Array(0)), 'FRAME_EMPTY');
      await rejectsWith(radio.send(peer.id, new Uint8Array(1_048_577).fill(0x7b)), 'FRAME_TOO_LARGE');
    });

    it('pushes back with QUEUE_FULL when the peer queue is full, then drains in order', async () => {
      const { radio, peer } = await openWithPeer(4);
      peer.stall();
      const frames = [1, 2, 3, 4].map((n) => frameOf(`queued ${n}`));
      const sends = frames.map((f) => radio.send(peer.id, f));
      const settled: number[] = [];
      sends.forEach((s, i) => s.then(() => settled.push(i)));
      await settle();
      assert.equal(radio.peers().find((p) => p.id === peer.id)?.queued, 4);
      const refused = await rejectsWith(radio.send(peer.id, frameOf('one too many')), 'QUEUE_FULL');
      assert.equal(refused.details?.depth, 4);
      assert.equal(radio.status().counters?.queueFull, 1);
      assert.deepEqual(settled, [], 'nothing completes while the link is stalled');
      await peer.unstall();
      await Promise.all(sends);
      assert.deepEqual(settled, [0, 1, 2, 3]);
      assert.deepEqual(peer.receivedFrames().map(hexOf), frames.map(hexOf));
      assert.equal(radio.peers().find((p) => p.id === peer.id)?.queued, 0);
    });

    it('rejects queued frames with CLOSED on close, and every send after it', async () => {
      const { radio, peer } = await openWithPeer(4);
      peer.stall();
      const sends = [1, 2, 3].map((n) => observed(radio.send(peer.id, frameOf(`pending ${n}`))));
      await settle();
      await radio.close();
      for (const s of sends) await rejectsWith(s, 'CLOSED');
      await rejectsWith(radio.send(peer.id, frameOf('late')), 'CLOSED');
      assert.equal(radio.status().state, 'stopped');
      assert.deepEqual(radio.peers(), []);
    });

    it('reports a lost peer down, fails its queue with PEER_LOST, and takes it back when it returns', async () => {
      const { radio, peer } = await openWithPeer(4);
      peer.stall();
      const pending = [1, 2].map((n) => observed(radio.send(peer.id, frameOf(`in flight ${n}`))));
      await settle();
      const down = nextEvent(radio, 'peer', (p) => p.id === peer.id && p.change === 'down');
      await peer.lose();
      const event = await down;
      assert.equal(event.connected, false);
      for (const s of pending) await rejectsWith(s, 'PEER_LOST');
      assert.equal(radio.status().peers, 0);
      await rejectsWith(radio.send(peer.id, frameOf('to nobody')), 'PEER_LOST');
      assert.notEqual(radio.status().state, 'stopped');

      const up = nextEvent(radio, 'peer', (p) => p.id === peer.id && p.change === 'up');
      await peer.restore();
      await up;
      const again = frameOf('after the return');
      await radio.send(peer.id, again);
      assert.equal(hexOf(peer.receivedFrames().at(-1) as Uint8Array), hexOf(again));
      const inbound = new Promise<Uint8Array>((resolve) => radio.once('frame', (f) => resolve(f.frame)));
      const back = frameOf('and it talks again', 'binary');
      await peer.sendToGateway(back);
      assert.equal(hexOf(await inbound), hexOf(back));
      assert.equal(radio.status().state, 'ready');
    });

    it('keeps working when a listener throws', async () => {
      const { radio, peer } = await openWithPeer();
      radio.on('frame', () => {
        throw new Error('a router bug');
      });
      const got: Uint8Array[] = [];
      radio.on('frame', (f) => got.push(f.frame));
      await peer.sendToGateway(frameOf('first'));
      await peer.sendToGateway(frameOf('second'));
      await settle();
      assert.equal(got.length, 2);
      await radio.send(peer.id, frameOf('still writes'));
    });
  });
}
