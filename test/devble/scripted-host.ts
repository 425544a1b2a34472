/**
 * A host for the controller's unit tests: it writes HCI packets as bytes, the way a UART host does, and parses what
 * the controller answers into events and ACL packets it can wait for.
 */
import { EventEmitter } from 'node:events';
import { H4, opcode } from '../../devble/hci';

export type ControllerPacket =
  | { kind: 'event'; code: number; params: Buffer }
  | { kind: 'acl'; handle: number; pb: number; data: Buffer };

export class ScriptedHost extends EventEmitter<{ data: [Buffer]; packet: [ControllerPacket] }> {
  readonly received: ControllerPacket[] = [];
  readonly bytes: Buffer[] = [];
  private pending: Buffer = Buffer.alloc(0);

  /** What the controller writes to the host. */
  write(data: Buffer): void {
    this.bytes.push(data);
    this.pending = Buffer.concat([this.pending, data]);
    for (;;) {
      const b = this.pending;
      if (b.length < 3) return;
      let size: number;
      if (b[0] === H4.EVENT) size = 3 + b[2];
      else if (b[0] === H4.ACL) size = b.length < 5 ? Infinity : 5 + b.readUInt16LE(3);
      else throw new Error(`unexpected indicator ${b[0]}`);
      if (b.length < size) return;
      const raw = b.subarray(0, size);
      this.pending = b.subarray(size);
      const packet: ControllerPacket =
        raw[0] === H4.EVENT
          ? { kind: 'event', code: raw[1], params: raw.subarray(3) }
          : { kind: 'acl', handle: raw.readUInt16LE(1) & 0x0fff, pb: raw.readUInt16LE(1) >> 12, data: raw.subarray(5) };
      this.received.push(packet);
      this.emit('packet', packet);
    }
  }

  command(op: number, params: Buffer = Buffer.alloc(0)): void {
    const head = Buffer.alloc(4);
    head.writeUInt8(H4.COMMAND, 0);
    head.writeUInt16LE(op, 1);
    head.writeUInt8(params.length, 3);
    this.emit('data', Buffer.concat([head, params]));
  }

  acl(handle: number, pb: number, data: Buffer): void {
    const head = Buffer.alloc(5);
    head.writeUInt8(H4.ACL, 0);
    head.writeUInt16LE(handle | (pb << 12), 1);
    head.writeUInt16LE(data.length, 3);
    this.emit('data', Buffer.concat([head, data]));
  }

  /** The return parameters of the Command Complete for `op` (status first), once it arrives. */
  async complete(op: number, params?: Buffer): Promise<Buffer> {
    const waiting = this.next((p) => p.kind === 'event' && p.code === 0x0e && p.params.readUInt16LE(1) === op);
    this.command(op, params);
    const p = await waiting;
    return (p as { params: Buffer }).params.subarray(3);
  }

  /** Resolves with the first packet (already received or still to come) after `from` that matches. */
  next(match: (p: ControllerPacket) => boolean, from = this.received.length): Promise<ControllerPacket> {
    const seen = this.received.slice(from).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener = (p: ControllerPacket): void => {
        if (!match(p)) return;
        this.removeListener('packet', listener);
        resolve(p);
      };
      this.on('packet', listener);
    });
  }

  leEvents(subevent: number): Buffer[] {
    return this.received.filter((p) => p.kind === 'event' && p.code === 0x3e && p.params[0] === subevent).map((p) => (p as { params: Buffer }).params.subarray(1));
  }

  nextLe(subevent: number, from = this.received.length): Promise<Buffer> {
    return this.next((p) => p.kind === 'event' && p.code === 0x3e && p.params[0] === subevent, from).then((p) => (p as { params: Buffer }).params.subarray(1));
  }

  /** What noble and bleno do at start, minus the reads: reset, then unmask every event. */
  async init(): Promise<void> {
    await this.complete(opcode(0x03, 0x0003));
    await this.complete(opcode(0x03, 0x0001), Buffer.from('ffffffffffffff3f', 'hex'));
    await this.complete(opcode(0x08, 0x0001), Buffer.from('ff00000000000000', 'hex'));
  }
}
