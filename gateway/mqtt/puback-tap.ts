/**
 * PUBACKs for the gateway's own publishes, taken off the socket before mqtt.js sees them. A mesh message makes one
 * or two QoS 1 publishes, so PUBACKs are nearly all the gateway receives; through mqtt.js each one was parsed by
 * mqtt-packet (a BufferList, a packet object, debug calls with their argument arrays) and handled on a tick of its
 * own: 2.4 KB of heap per mesh message, a tenth of what the gateway allocated (docs/gateway.md, "PUBACKs off the
 * socket"). Here a PUBACK is four bytes read in place. Every other packet, and a PUBACK the gateway did not ask for,
 * reaches mqtt.js byte for byte.
 *
 * The tap only frames packets (fixed header, remaining length); anything it cannot frame goes to mqtt.js unread
 * from there on, so mqtt.js reports the broken stream as it always did.
 */
import { Writable } from 'node:stream';

const PUBACK = 0x40;
/** A fixed header is at most 1 type byte and 4 remaining-length bytes. */
const MAX_HEADER = 5;
/**
 * A PUBACK longer than this (MQTT 5 allows a reason string and user properties) goes to mqtt.js, whose
 * `packetreceive` the connection also reads: the tap never holds more than a few bytes back.
 */
const MAX_TAKEN = 64;
const CUT = -1;
const INVALID = -2;

/** Takes a PUBACK for `packetId`; false when the id is not the gateway's (mqtt.js then gets the packet). */
export type TakePuback = (packetId: number, reasonCode: number) => boolean;

export class PubackTap extends Writable {
  /** Bytes of a packet mqtt.js gets that are still to come in later chunks. */
  private passing = 0;
  /** The start of a packet cut inside its fixed header, or of a PUBACK cut short. */
  private carry: Buffer | undefined;
  /** Could not frame: everything from here on goes to mqtt.js as it comes. */
  private through = false;
  /** The body length of the packet whose header `readHeader` read last. */
  private bodyLength = 0;

  constructor(
    private readonly dest: Writable,
    private readonly take: TakePuback,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    const forward = this.split(chunk);
    // mqtt.js's side may be gone already (its client closed): what it would have read is of no use to anyone.
    if (forward.length === 0 || this.dest.writableEnded || this.dest.destroyed) return done();
    for (let i = 0; i < forward.length - 1; i++) this.dest.write(forward[i]);
    // The next chunk is read once mqtt.js has handled these, as it was when the socket was piped to it directly.
    this.dest.write(forward[forward.length - 1], () => done());
  }

  override _final(done: (err?: Error | null) => void): void {
    if (this.dest.writableEnded || this.dest.destroyed) return done();
    if (this.carry) this.dest.write(this.carry);
    this.carry = undefined;
    this.dest.end(() => done());
  }

  /** The parts of `chunk` that go to mqtt.js, in order; own PUBACKs are taken on the way. */
  split(chunk: Buffer): Buffer[] {
    if (this.through) return [chunk];
    let buf = chunk;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    const out: Buffer[] = [];
    let at = 0;
    // Bytes from `from` up to `at` go to mqtt.js: consecutive packets it gets leave as one view.
    let from = 0;
    if (this.passing > 0) {
      at = Math.min(this.passing, buf.length);
      this.passing -= at;
    }
    while (at < buf.length) {
      const bodyAt = this.readHeader(buf, at);
      if (bodyAt === CUT) {
        this.carry = Buffer.from(buf.subarray(at));
        break;
      }
      if (bodyAt === INVALID) {
        // Not MQTT as far as the tap can tell: mqtt.js gets the rest and says what is wrong.
        this.through = true;
        at = buf.length;
        break;
      }
      const length = this.bodyLength;
      const end = bodyAt + length;
      if (buf[at] === PUBACK && length >= 2 && length <= MAX_TAKEN) {
        if (end > buf.length) {
          this.carry = Buffer.from(buf.subarray(at));
          break;
        }
        const packetId = buf.readUInt16BE(bodyAt);
        if (this.take(packetId, length >= 3 ? buf[bodyAt + 2]! : 0)) {
          if (at > from) out.push(buf.subarray(from, at));
          from = end;
        }
        at = end;
        continue;
      }
      if (end > buf.length) {
        this.passing = end - buf.length;
        at = buf.length;
        break;
      }
      at = end;
    }
    if (at > from) out.push(from === 0 && at === buf.length ? buf : buf.subarray(from, at));
    return out;
  }

  /**
   * Where the body of the packet at `at` starts (its length in `bodyLength`): CUT when the fixed header runs past the
   * end of `buf`, INVALID when its remaining length is longer than MQTT allows.
   */
  private readHeader(buf: Buffer, at: number): number {
    let length = 0;
    let scale = 1;
    for (let i = at + 1; i < at + MAX_HEADER; i++) {
      if (i >= buf.length) return CUT;
      const byte = buf[i]!;
      length += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) {
        this.bodyLength = length;
        return i + 1;
      }
      scale *= 128;
    }
    return INVALID;
  }
}
