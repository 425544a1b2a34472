/**
 * How the gateway benches' driver hands BLE fragments to a remote-peers radio in the gateway process: a byte stream
 * of its own (a socket pair, the forked child's stdio fd 4), not Node's IPC channel. IPC sends each batch as JSON
 * text, so the gateway process parsed a JSON line and decoded base64 for every batch: about 2 KB of heap per
 * message, half of it kept long enough to be promoted, none of it the gateway's work. A radio's own I/O (a serial
 * read, a BLE notification) hands over bytes; so does this.
 *
 * A record is `u16be peer, u32be length, units`, where units is `u16be length, bytes` repeated (`packUnitBytes`).
 */
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';

/** The child's file descriptor of the link, as `fork`'s `stdio` array places it. */
export const RADIO_LINK_FD = 4;
/** The `fork` stdio array that opens the link beside the IPC channel. */
export const RADIO_LINK_STDIO = ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'] as const;

const HEADER = 6;

/** Units as `u16be length, bytes`, repeated, after `headroom` bytes left for the caller. */
function packUnitBytes(units: readonly Uint8Array[], headroom = 0): Buffer {
  let size = headroom;
  for (const u of units) size += 2 + u.length;
  const out = Buffer.allocUnsafe(size);
  let at = headroom;
  for (const u of units) {
    out.writeUInt16BE(u.length, at);
    out.set(u, at + 2);
    at += 2 + u.length;
  }
  return out;
}

/** The driver's end: one record per batch of one peer's units. */
export class RadioLinkWriter {
  constructor(private readonly stream: Writable) {}

  /** The stream of a child forked with `RADIO_LINK_STDIO`. */
  static of(child: { stdio: ReadonlyArray<unknown> }): RadioLinkWriter {
    const stream = child.stdio[RADIO_LINK_FD] as Writable | null | undefined;
    if (!stream) throw new Error(`the child was not forked with a radio link on fd ${RADIO_LINK_FD}`);
    return new RadioLinkWriter(stream);
  }

  /** One record, built ahead of time (a bench prepares its batches before the clock starts). */
  static record(peer: number, units: readonly Uint8Array[]): Buffer {
    const out = packUnitBytes(units, HEADER);
    out.writeUInt16BE(peer, 0);
    out.writeUInt32BE(out.length - HEADER, 2);
    return out;
  }

  send(peer: number, units: readonly Uint8Array[]): void {
    this.stream.write(RadioLinkWriter.record(peer, units));
  }

  sendRecord(record: Buffer): void {
    this.stream.write(record);
  }
}

/**
 * The gateway process's end: reads records from fd `RADIO_LINK_FD` (or `from`) and hands each one's units to
 * `onUnits` as a view (valid during the call). A record split across reads waits for its rest.
 */
export function readRadioLink(onUnits: (peer: number, units: Uint8Array) => void, from: Readable = new net.Socket({ fd: RADIO_LINK_FD, readable: true, writable: false })): Readable {
  let held: Buffer | undefined;
  from.on('data', (chunk: Buffer) => {
    const buf = held === undefined ? chunk : Buffer.concat([held, chunk]);
    held = undefined;
    let at = 0;
    while (buf.length - at >= HEADER) {
      const n = buf.readUInt32BE(at + 2);
      if (buf.length - at - HEADER < n) break;
      onUnits(buf.readUInt16BE(at), buf.subarray(at + HEADER, at + HEADER + n));
      at += HEADER + n;
    }
    if (at < buf.length) held = Buffer.from(buf.subarray(at));
  });
  return from;
}
