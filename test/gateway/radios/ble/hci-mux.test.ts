/**
 * The HCI multiplexer on HCI traffic recorded from noble and bleno sharing one devble controller
 * (fixtures/two-roles.hci.json, written by support/record-hci.ts), and on hand-built packets for what a recording
 * of a healthy run does not contain (credits held back, Hardware Error, garbage).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HciMux, type HciRole, type HciTraceStep } from '../../../../gateway/radios/ble/hci-mux';
import { CACHED_READS, command, commandComplete, completedPackets, OP } from '../../../../gateway/radios/ble/hci-packets';
import { H4Reader } from '../../../../gateway/radios/ble/h4-reader';
import { BleTransportError } from '../../../../gateway/radios/ble/errors';
import type { RecordedStep } from './support/record-hci';

const RECORDING = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'gateway', 'radios', 'ble', 'fixtures', 'two-roles.hci.json'), 'utf8'),
) as RecordedStep[];

interface Run {
  mux: HciMux;
  trace: RecordedStep[];
  toController: Buffer[];
  toStack: Record<HciRole, Buffer[]>;
  faults: string[];
}

function harness(): Run {
  const run: Run = { trace: [], toController: [], toStack: { central: [], peripheral: [] }, faults: [] } as unknown as Run;
  run.mux = new HciMux({
    write: (packet) => run.toController.push(Buffer.from(packet)),
    onFault: (reason) => run.faults.push(reason),
    trace: (step: HciTraceStep, role, packet) => run.trace.push(role === undefined ? { step, hex: packet.toString('hex') } : { step, role, hex: packet.toString('hex') }),
  });
  run.mux.attach('central', (p) => run.toStack.central.push(Buffer.from(p)));
  run.mux.attach('peripheral', (p) => run.toStack.peripheral.push(Buffer.from(p)));
  return run;
}

function replay(): Run {
  const run = harness();
  run.mux.start();
  for (const step of RECORDING) {
    const packet = Buffer.from(step.hex, 'hex');
    if (step.step === 'from-stack') run.mux.send(step.role as HciRole, packet);
    else if (step.step === 'from-controller') run.mux.receive(packet);
  }
  return run;
}

const isEvent = (p: Buffer, code: number): boolean => p[0] === 0x04 && p[1] === code;
const isLeMeta = (p: Buffer, sub: number): boolean => isEvent(p, 0x3e) && p[3] === sub;
/** Command opcodes of the command-complete/status events a stack received. */
function answeredOpcodes(packets: Buffer[]): number[] {
  return packets.flatMap((p) => (isEvent(p, 0x0e) ? [p.readUInt16LE(4)] : isEvent(p, 0x0f) ? [p.readUInt16LE(5)] : [])).filter((op) => op !== 0);
}

/** Runs `mux` to ready with a well-behaved controller: answers Reset and the four init reads. */
function bringUp(run: Run, aclBuffers = 2): void {
  run.mux.start();
  run.mux.receive(commandComplete(OP.RESET, Buffer.of(0)));
  run.mux.receive(commandComplete(OP.READ_LOCAL_VERSION, Buffer.of(0, 0x0c, 0x01, 0x00, 0x0c, 0x59, 0x00, 0x00, 0x00)));
  run.mux.receive(commandComplete(OP.READ_BD_ADDR, Buffer.of(0, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01)));
  run.mux.receive(commandComplete(OP.READ_BUFFER_SIZE, Buffer.of(0, 251, 0, 0, aclBuffers, 0, 0, 0)));
  run.mux.receive(commandComplete(OP.LE_READ_BUFFER_SIZE, Buffer.of(0, 251, 0, aclBuffers)));
}

function leConnComplete(handle: number, role: 0 | 1, status = 0): Buffer {
  const out = Buffer.alloc(4 + 19);
  out[0] = 0x04;
  out[1] = 0x3e;
  out[2] = 20;
  out[3] = 0x01;
  out[4] = status;
  out.writeUInt16LE(handle, 5);
  out[7] = role;
  return out;
}

function acl(handle: number, bytes = 4): Buffer {
  const out = Buffer.alloc(5 + bytes);
  out[0] = 0x02;
  out.writeUInt16LE(handle | 0x2000, 1);
  out.writeUInt16LE(bytes, 3);
  return out;
}

describe('gateway/radios/ble HciMux', () => {
  describe('on recorded traffic (noble and bleno on one devble controller)', () => {
    it('replays deterministically: the same inputs give the recorded outputs, packet for packet, in order', () => {
      const run = replay();
      assert.equal(run.trace.length, RECORDING.length);
      assert.deepEqual(run.trace, RECORDING);
      assert.deepEqual(run.faults, []);
    });

    it('resets the controller once although noble asked for a Reset of its own, and answers noble\'s Reset itself', () => {
      const run = replay();
      const resets = run.toController.filter((p) => p.equals(command(OP.RESET)));
      assert.equal(resets.length, 1);
      const stackResets = RECORDING.filter((s) => s.step === 'from-stack' && s.hex === '01030c00');
      assert.ok(stackResets.length >= 1, 'noble sent a Reset in the recording');
      for (const step of stackResets) assert.ok(answeredOpcodes(run.toStack[step.role as HciRole]).includes(OP.RESET), `${step.role} got its Reset answered`);
      assert.ok(run.mux.counters.answeredLocally > 0);
    });

    it('answers each stack exactly the commands it sent, one answer each, those from the controller in order', () => {
      const run = replay();
      for (const role of ['central', 'peripheral'] as const) {
        const sent = RECORDING.filter((s) => s.step === 'from-stack' && s.role === role && s.hex.startsWith('01')).map((s) => Buffer.from(s.hex, 'hex').readUInt16LE(1));
        const answered = answeredOpcodes(run.toStack[role]);
        // The recording ends while the last commands are still with the controller: those may be unanswered.
        const unanswered = [...sent];
        for (const op of answered) {
          const at = unanswered.indexOf(op);
          assert.ok(at >= 0, `${role}: answer to 0x${op.toString(16)} it did not send (or twice)`);
          unanswered.splice(at, 1);
        }
        const tail = sent.slice(-4);
        for (const op of unanswered) assert.ok(tail.includes(op), `${role}: 0x${op.toString(16)} was never answered`);
        assert.ok(answered.length >= 10, `${role}: ${answered.length} answers`);
        // Cached reads and a second Reset are answered at once; everything else in the order it was sent.
        const passedOn = (ops: number[]): number[] => ops.filter((op) => !CACHED_READS.has(op) && op !== OP.RESET);
        assert.deepEqual(passedOn(answered), passedOn(sent).slice(0, passedOn(answered).length), `${role}: answers from the controller in command order`);
      }
    });

    it('gives advertising reports to the central only, and each LE connection to the stack of its role', () => {
      const run = replay();
      assert.ok(run.toStack.central.some((p) => isLeMeta(p, 0x02)), 'the central saw advertising reports');
      assert.equal(run.toStack.peripheral.filter((p) => isLeMeta(p, 0x02)).length, 0);
      const conns = (role: HciRole): Buffer[] => run.toStack[role].filter((p) => isLeMeta(p, 0x01) || isLeMeta(p, 0x0a));
      assert.ok(conns('central').length >= 1 && conns('peripheral').length >= 1, 'a connection in each role');
      for (const p of conns('central')) assert.equal(p[7], 0x00);
      for (const p of conns('peripheral')) assert.equal(p[7], 0x01);
    });

    it('routes ACL data and Number Of Completed Packets by connection handle', () => {
      const run = replay();
      const handleOf = (role: HciRole): Set<number> =>
        new Set(run.toStack[role].filter((p) => (isLeMeta(p, 0x01) || isLeMeta(p, 0x0a)) && p[4] === 0).map((p) => p.readUInt16LE(5) & 0x0fff));
      for (const role of ['central', 'peripheral'] as const) {
        const mine = handleOf(role);
        const acls = run.toStack[role].filter((p) => p[0] === 0x02);
        assert.ok(acls.length > 0, `${role} received ACL data`);
        for (const p of acls) assert.ok(mine.has(p.readUInt16LE(1) & 0x0fff), `${role} got ACL of its own handle`);
        for (const p of run.toStack[role].filter((q) => isEvent(q, 0x13))) {
          for (let i = 0; i < p[3]; i++) assert.ok(mine.has(p.readUInt16LE(4 + i * 4) & 0x0fff), `${role} got completed packets of its own handle`);
        }
      }
    });

    it('sets the union of both stacks\' event masks on the controller', () => {
      const run = replay();
      for (const opcode of [OP.SET_EVENT_MASK, OP.LE_SET_EVENT_MASK]) {
        const asked = RECORDING.filter((s) => s.step === 'from-stack' && Buffer.from(s.hex, 'hex').readUInt16LE(1) === opcode && s.hex.startsWith('01'));
        const union = Buffer.alloc(8);
        for (const s of asked) Buffer.from(s.hex, 'hex').subarray(4, 12).forEach((b, i) => (union[i] |= b));
        const written = run.toController.filter((p) => p[0] === 0x01 && p.readUInt16LE(1) === opcode);
        assert.ok(written.length > 0);
        assert.deepEqual(written.at(-1)?.subarray(4, 12), union);
      }
    });
  });

  describe('on hand-built packets', () => {
    it('holds the next command until the controller grants a credit, and answers two stacks with the same opcode in order', () => {
      const run = harness();
      bringUp(run);
      const before = run.toController.length;
      const readRssi = 0x1405;
      run.mux.send('central', command(readRssi, Buffer.of(1, 0)));
      run.mux.send('peripheral', command(readRssi, Buffer.of(2, 0)));
      assert.equal(run.toController.length, before + 1, 'one command in flight at a time');
      const answer = (h: number): Buffer => {
        const p = commandComplete(readRssi, Buffer.of(0, h, 0, 0xc0));
        return p;
      };
      run.mux.receive(answer(1));
      assert.equal(run.toController.length, before + 2, 'the credit released the second command');
      run.mux.receive(answer(2));
      assert.deepEqual(answeredOpcodes(run.toStack.central), [readRssi]);
      assert.equal(run.toStack.central.at(-1)?.[7], 1);
      assert.equal(run.toStack.peripheral.at(-1)?.[7], 2);
    });

    it('answers cached reads after the first from the cache, without asking the controller', () => {
      const run = harness();
      bringUp(run);
      const before = run.toController.length;
      run.mux.send('peripheral', command(OP.READ_BD_ADDR));
      run.mux.send('central', command(OP.LE_READ_BUFFER_SIZE));
      assert.equal(run.toController.length, before);
      assert.deepEqual(run.toStack.peripheral.at(-1), commandComplete(OP.READ_BD_ADDR, Buffer.of(0, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01)));
      assert.equal(run.mux.info?.address, '01:02:03:04:05:06');
    });

    it('never has more ACL packets in flight than the controller has buffers, across both stacks; a disconnection frees its share', () => {
      const run = harness();
      bringUp(run, 2);
      run.mux.receive(leConnComplete(0x40, 0));
      run.mux.receive(leConnComplete(0x41, 1));
      const aclOut = (): number => run.toController.filter((p) => p[0] === 0x02).length;
      run.mux.send('central', acl(0x40));
      run.mux.send('central', acl(0x40));
      run.mux.send('peripheral', acl(0x41));
      assert.equal(aclOut(), 2, 'two buffers: the third packet waits');
      run.mux.receive(completedPackets([[0x40, 1]]));
      assert.equal(aclOut(), 3);
      assert.equal(run.toStack.central.filter((p) => isEvent(p, 0x13)).length, 1);
      assert.equal(run.toStack.peripheral.filter((p) => isEvent(p, 0x13)).length, 0, 'completions of a central handle are the central\'s');
      run.mux.send('peripheral', acl(0x41));
      assert.equal(aclOut(), 3);
      // The central's link drops with its packet still in the controller: that buffer is free again.
      run.mux.receive(Buffer.of(0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13));
      assert.equal(aclOut(), 4);
      assert.equal(run.toStack.peripheral.filter((p) => isEvent(p, 0x05)).length, 0, 'the disconnection went to the central only');
      assert.equal(run.toStack.central.filter((p) => isEvent(p, 0x05)).length, 1);
      run.mux.send('central', acl(0x40));
      assert.equal(aclOut(), 4, 'no ACL for a handle that is gone');
    });

    it('drops ACL a stack writes for a handle of the other role', () => {
      const run = harness();
      bringUp(run);
      run.mux.receive(leConnComplete(0x40, 1));
      run.mux.send('central', acl(0x40));
      assert.equal(run.toController.filter((p) => p[0] === 0x02).length, 0);
    });

    it('a Hardware Error reaches both stacks and resets the controller once; their Resets are answered when it is back', () => {
      const run = harness();
      const ready: boolean[] = [];
      run.mux = new HciMux({ write: (p) => run.toController.push(p), onReady: (r) => ready.push(r) });
      run.mux.attach('central', (p) => run.toStack.central.push(p));
      run.mux.attach('peripheral', (p) => run.toStack.peripheral.push(p));
      bringUp(run);
      run.mux.receive(leConnComplete(0x40, 1));
      run.mux.receive(Buffer.of(0x04, 0x10, 0x01, 0x00));
      assert.ok(run.toStack.central.some((p) => isEvent(p, 0x10)) && run.toStack.peripheral.some((p) => isEvent(p, 0x10)));
      run.mux.send('central', command(OP.RESET));
      run.mux.send('peripheral', command(OP.RESET));
      assert.equal(run.toController.filter((p) => p.equals(command(OP.RESET))).length, 2, 'the first Reset and the one after the error');
      assert.equal(answeredOpcodes(run.toStack.central).filter((op) => op === OP.RESET).length, 0, 'not answered before the controller is back');
      run.mux.receive(commandComplete(OP.RESET, Buffer.of(0)));
      run.mux.receive(commandComplete(OP.READ_LOCAL_VERSION, Buffer.of(0, 0x0c, 0x01, 0x00, 0x0c, 0x59, 0x00, 0x00, 0x00)));
      run.mux.receive(commandComplete(OP.READ_BD_ADDR, Buffer.of(0, 6, 5, 4, 3, 2, 1)));
      run.mux.receive(commandComplete(OP.READ_BUFFER_SIZE, Buffer.of(0, 251, 0, 0, 2, 0, 0, 0)));
      run.mux.receive(commandComplete(OP.LE_READ_BUFFER_SIZE, Buffer.of(0, 251, 0, 2)));
      assert.equal(answeredOpcodes(run.toStack.central).filter((op) => op === OP.RESET).length, 1);
      assert.equal(answeredOpcodes(run.toStack.peripheral).filter((op) => op === OP.RESET).length, 1);
      assert.deepEqual(ready, [true, false, true]);
      assert.equal(run.mux.handles.size, 0, 'the reset ended every connection');
    });

    it('reports a malformed event as a fault and counts it, routing nothing', () => {
      const run = harness();
      bringUp(run);
      const delivered = run.toStack.central.length + run.toStack.peripheral.length;
      run.mux.receive(Buffer.of(0x04, 0x0e, 0x09, 0x01));
      run.mux.receive(Buffer.of(0x04, 0x13, 0x01, 0x03));
      assert.equal(run.mux.counters.malformed, 2);
      assert.equal(run.faults.length, 2);
      assert.equal(run.toStack.central.length + run.toStack.peripheral.length, delivered);
    });

    it('counts a Command Complete nobody is waiting for as stray instead of handing it to a stack', () => {
      const run = harness();
      bringUp(run);
      run.mux.receive(commandComplete(0x200b, Buffer.of(0)));
      assert.equal(run.mux.counters.strayCompletes, 1);
      assert.equal(answeredOpcodes(run.toStack.central).length + answeredOpcodes(run.toStack.peripheral).length, 0);
    });
  });

  describe('H4Reader (controller to host framing)', () => {
    it('reassembles packets split at every byte and several packets in one chunk', () => {
      const packets = [commandComplete(OP.RESET, Buffer.of(0)), acl(0x40, 30), completedPackets([[0x40, 2]])];
      const bytes = Buffer.concat(packets);
      const reader = new H4Reader();
      const out = [...bytes].flatMap((b) => reader.push(Buffer.of(b)));
      assert.deepEqual(out, packets);
      assert.deepEqual(new H4Reader().push(bytes), packets);
    });

    it('throws GARBAGE on an indicator a controller never sends and forgets what it held', () => {
      const reader = new H4Reader();
      reader.push(Buffer.of(0x04, 0x0e));
      assert.throws(() => reader.push(Buffer.of(0x01, 0x00, 0x33, 0x04)), (err: unknown) => err instanceof BleTransportError && err.code === 'GARBAGE');
      assert.throws(() => new H4Reader().push(Buffer.of(0x7f)), (err: unknown) => err instanceof BleTransportError && err.code === 'GARBAGE');
      assert.equal(reader.buffered, 0);
    });
  });
});
