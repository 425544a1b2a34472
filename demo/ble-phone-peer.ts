/**
 * A BLE phone (ble-phone.ts, the real bleno on a virtual controller) as a node of the demo's mesh: it says what it
 * has to say to the gateway as mesh messages in notifications, hears the frames the gateway writes to it, and
 * acknowledges those that ask for it, as a reference phone does.
 */
import { EventEmitter } from 'node:events';
import { buildAck, isAck } from '../lib/mesh/ack';
import { decodeFrame, encodeFrame } from '../lib/mesh/frame';
import { createMessage, DEFAULT_TTL, type MeshMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import type { BlenoPhone } from './ble-phone';
import type { DemoPeer, DemoReceipt } from './virtual-site';

/** The app id of what the demo's nodes say (the simulated peers use the same). */
const DEMO_APP_ID = 'clawling-demo';

export class BlePhonePeer extends EventEmitter<{ received: [DemoReceipt] }> implements DemoPeer {
  readonly address: string;
  /** Frames from the gateway, and ACKs this phone sent for them. */
  received = 0;
  acksSent = 0;

  constructor(
    readonly id: string,
    readonly phone: BlenoPhone,
    private readonly gatewayAddress: string,
  ) {
    super();
    this.address = phone.identity.address;
    phone.on('frame', (frame) => this.onFrame(frame));
  }

  /** Rejects while the gateway has not subscribed to this phone's notifications (not connected yet, or gone). */
  async say(text: string): Promise<MeshMessage> {
    const message = createMessage({
      id: MessageId.random(),
      sender: this.address,
      recipient: this.gatewayAddress,
      app_id: DEMO_APP_ID,
      priority: 'medium',
      ttl: DEFAULT_TTL,
      hop_count: 0,
      timestamp: BigInt(Date.now()),
      content: text,
      requires_ack: true,
    });
    this.phone.send(encodeFrame(message, 'binary'));
    return message;
  }

  private onFrame(frame: Uint8Array): void {
    this.received += 1;
    let message: MeshMessage;
    try {
      message = decodeFrame(frame);
    } catch {
      this.emit('received', {});
      return;
    }
    this.emit('received', { message });
    if (!message.requires_ack || message.recipient !== this.address || isAck(message) || !this.phone.subscribed) return;
    const ack = buildAck(message, { localId: this.address, appId: DEMO_APP_ID, transport: 'ble' });
    this.phone.send(encodeFrame(ack, 'binary'));
    this.acksSent += 1;
  }
}
