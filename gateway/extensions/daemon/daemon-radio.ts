/**
 * The attached devices as a radio: each bound session is a peer whose address is the one it proved, so the router
 * treats it as a neighbour like any other (relay choice, ACKs back over the arrival link, the status page, MQTT's
 * `rx_radio: daemon`). A frame the router writes to such a peer is handed to its session as `MessageReceived`; a
 * frame a session submits enters the router as this radio's inbound frame. Verdict-only sessions submit without
 * being peers: nothing is ever routed to them.
 */
import type { Clock } from '../../../lib/clock';
import { RadioBase } from '../../radios/radio-base';
import { RadioError, type RadioLogger, type RadioPeer } from '../../radios/radio';

export const DAEMON_RADIO_ID = 'daemon';

/** Writes one frame to a session as `MessageReceived`; rejects when the session cannot take it. */
export type DeviceSink = (sessionId: string, frame: Uint8Array) => Promise<void>;

export class DaemonRadio extends RadioBase {
  constructor(
    logger: RadioLogger,
    clock: Clock,
    private readonly sink: DeviceSink,
    private readonly maxDeliverableFrameBytes: number,
  ) {
    // Each session's own socket bound is the real limit; the queue only smooths a burst for one device.
    super(DAEMON_RADIO_ID, 'daemon', { logger, clock, queueLimit: 1024, queueByteLimit: 8 * 1_048_576 });
  }

  protected async doOpen(): Promise<void> {
    this.setState('ready');
  }

  protected async doClose(): Promise<void> {
    this.setState('stopped');
  }

  protected writeFrame(peerId: string, frame: Uint8Array): Promise<void> {
    return this.sink(peerId, frame);
  }

  protected override maxFrameBytes(_peer: RadioPeer): number {
    return this.maxDeliverableFrameBytes;
  }

  /** A session proved `address`: it is a neighbour from now on. JSON floor until its key package says otherwise. */
  attach(sessionId: string, address: string): void {
    this.peerUp({ id: sessionId, address, wireVersions: [] });
  }

  detach(sessionId: string, reason: string): void {
    this.peerDown(sessionId, reason, true);
  }

  /** A frame a session submitted: from its peer when bound, else from a link that is no neighbour. */
  submit(sessionId: string, frame: Uint8Array): void {
    if (this.peer(sessionId)?.connected) {
      this.deliver(sessionId, frame);
      return;
    }
    if (this.isClosed) throw new RadioError('CLOSED', 'the daemon radio is closed');
    this.emit('frame', { radioId: this.id, peerId: sessionId, frame, receivedAt: this.clock.now() });
  }
}
