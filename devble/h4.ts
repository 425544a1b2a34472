/**
 * H4 (UART transport, Vol 4 Part A) framing of what a host writes to its controller: a packet indicator byte, then
 * an HCI command (2-byte opcode, 1-byte length) or ACL data (2-byte handle and flags, 2-byte length) packet. Bytes
 * arrive in arbitrary chunks; whole packets come out.
 */
import { H4 } from './hci';

export type HostPacket =
  | { kind: 'command'; opcode: number; params: Buffer; raw: Buffer }
  | { kind: 'acl'; handle: number; pb: number; data: Buffer; raw: Buffer };

export class H4Parser {
  private pending: Buffer = Buffer.alloc(0);

  /** Feeds bytes; returns the packets they complete. Throws on a packet indicator a host never sends. */
  push(chunk: Buffer): HostPacket[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: HostPacket[] = [];
    for (;;) {
      const packet = this.next();
      if (packet === undefined) return out;
      out.push(packet);
    }
  }

  private next(): HostPacket | undefined {
    const buf = this.pending;
    if (buf.length === 0) return undefined;
    const indicator = buf[0];
    if (indicator === H4.COMMAND) {
      if (buf.length < 4) return undefined;
      const size = 4 + buf.readUInt8(3);
      if (buf.length < size) return undefined;
      const raw = buf.subarray(0, size);
      this.pending = buf.subarray(size);
      return { kind: 'command', opcode: raw.readUInt16LE(1), params: raw.subarray(4), raw };
    }
    if (indicator === H4.ACL) {
      if (buf.length < 5) return undefined;
      const size = 5 + buf.readUInt16LE(3);
      if (buf.length < size) return undefined;
      const raw = buf.subarray(0, size);
      this.pending = buf.subarray(size);
      const hf = raw.readUInt16LE(1);
      return { kind: 'acl', handle: hf & 0x0fff, pb: (hf >> 12) & 0b11, data: raw.subarray(5), raw };
    }
    this.pending = Buffer.alloc(0);
    throw new Error(`H4: unexpected packet indicator 0x${indicator.toString(16).padStart(2, '0')} from the host`);
  }
}
