/**
 * H4 framing of what a controller sends (Vol 4 Part A): a packet indicator, then an event (code, 1-byte length) or
 * ACL data (handle and flags, 2-byte length). Bytes arrive in any chunking; whole packets come out. An indicator a
 * controller never sends throws `BleTransportError` `GARBAGE` and leaves the reader empty: after garbage there is
 * no telling where the next packet starts, so the caller resets the controller.
 */
import { BleTransportError } from './errors';
import { H4_ACL, H4_EVENT } from './hci-packets';

export class H4Reader {
  #pending: Buffer = Buffer.alloc(0);

  /** Feeds bytes; returns the packets they complete (each a copy, the indicator first). */
  push(chunk: Buffer): Buffer[] {
    this.#pending = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const size = this.#nextSize();
      if (size === undefined || this.#pending.length < size) return out;
      out.push(this.#pending.subarray(0, size));
      this.#pending = this.#pending.subarray(size);
    }
  }

  /** Bytes held for an unfinished packet. */
  get buffered(): number {
    return this.#pending.length;
  }

  clear(): void {
    this.#pending = Buffer.alloc(0);
  }

  #nextSize(): number | undefined {
    const buf = this.#pending;
    if (buf.length === 0) return undefined;
    if (buf[0] === H4_EVENT) return buf.length < 3 ? undefined : 3 + buf[2];
    if (buf[0] === H4_ACL) return buf.length < 5 ? undefined : 5 + buf.readUInt16LE(3);
    const indicator = buf[0];
    this.#pending = Buffer.alloc(0);
    throw new BleTransportError('GARBAGE', `the controller sent 0x${indicator.toString(16).padStart(2, '0')} where an H4 packet indicator belongs`, { indicator });
  }
}
