/**
 * The few HCI facts the multiplexer routes by (Core Spec Vol 4 Part E): H4 packet indicators, the opcodes it treats
 * specially, event codes, and the builders of the events it answers itself. Readers return `undefined` on a packet
 * too short to hold the field, never throw.
 */

/** H4 packet indicators (Vol 4 Part A §2). */
export const H4_COMMAND = 0x01;
export const H4_ACL = 0x02;
export const H4_EVENT = 0x04;

const ogfOcf = (ogf: number, ocf: number): number => (ogf << 10) | ocf;

export const OP = Object.freeze({
  SET_EVENT_MASK: ogfOcf(0x03, 0x0001),
  RESET: ogfOcf(0x03, 0x0003),
  READ_LOCAL_VERSION: ogfOcf(0x04, 0x0001),
  READ_LOCAL_COMMANDS: ogfOcf(0x04, 0x0002),
  READ_LOCAL_FEATURES: ogfOcf(0x04, 0x0003),
  READ_BUFFER_SIZE: ogfOcf(0x04, 0x0005),
  READ_BD_ADDR: ogfOcf(0x04, 0x0009),
  LE_SET_EVENT_MASK: ogfOcf(0x08, 0x0001),
  LE_READ_BUFFER_SIZE: ogfOcf(0x08, 0x0002),
  LE_READ_LOCAL_FEATURES: ogfOcf(0x08, 0x0003),
  LE_READ_SUPPORTED_STATES: ogfOcf(0x08, 0x001c),
  LE_READ_MAX_DATA_LENGTH: ogfOcf(0x08, 0x002f),
});

/**
 * Reads whose answer only a Reset could change: asked once of the controller, then answered from the first reply,
 * so that the second stack's initialisation sends the controller nothing it already answered.
 */
export const CACHED_READS: ReadonlySet<number> = new Set([
  OP.READ_LOCAL_VERSION,
  OP.READ_LOCAL_COMMANDS,
  OP.READ_LOCAL_FEATURES,
  OP.READ_BUFFER_SIZE,
  OP.READ_BD_ADDR,
  OP.LE_READ_BUFFER_SIZE,
  OP.LE_READ_LOCAL_FEATURES,
  OP.LE_READ_SUPPORTED_STATES,
  OP.LE_READ_MAX_DATA_LENGTH,
]);

export const EVT = Object.freeze({
  DISCONNECTION_COMPLETE: 0x05,
  ENCRYPTION_CHANGE: 0x08,
  READ_REMOTE_FEATURES_COMPLETE: 0x0b,
  READ_REMOTE_VERSION_COMPLETE: 0x0c,
  COMMAND_COMPLETE: 0x0e,
  COMMAND_STATUS: 0x0f,
  HARDWARE_ERROR: 0x10,
  NUMBER_OF_COMPLETED_PACKETS: 0x13,
  ENCRYPTION_KEY_REFRESH: 0x30,
  LE_META: 0x3e,
});

export const LE_SUB = Object.freeze({
  CONNECTION_COMPLETE: 0x01,
  ADVERTISING_REPORT: 0x02,
  CONNECTION_UPDATE_COMPLETE: 0x03,
  READ_REMOTE_FEATURES_COMPLETE: 0x04,
  LTK_REQUEST: 0x05,
  REMOTE_CONNECTION_PARAMETER_REQUEST: 0x06,
  DATA_LENGTH_CHANGE: 0x07,
  ENHANCED_CONNECTION_COMPLETE: 0x0a,
  DIRECTED_ADVERTISING_REPORT: 0x0b,
  PHY_UPDATE_COMPLETE: 0x0c,
  EXTENDED_ADVERTISING_REPORT: 0x0d,
  SCAN_TIMEOUT: 0x11,
  ADVERTISING_SET_TERMINATED: 0x12,
  SCAN_REQUEST_RECEIVED: 0x13,
  CHANNEL_SELECTION_ALGORITHM: 0x14,
  ENHANCED_CONNECTION_COMPLETE_V2: 0x29,
});

/** Advertising Timeout (Vol 1 Part F): a directed advertisement ended unanswered; it belongs to the advertiser. */
export const STATUS_ADVERTISING_TIMEOUT = 0x3c;

/** A command packet's opcode, or undefined when the packet is not a whole command. */
export function commandOpcode(packet: Buffer): number | undefined {
  if (packet.length < 4 || packet[0] !== H4_COMMAND || packet.length !== 4 + packet[3]) return undefined;
  return packet.readUInt16LE(1);
}

/** An ACL packet's connection handle (12 bits), or undefined when the packet is not a whole ACL packet. */
export function aclHandle(packet: Buffer): number | undefined {
  if (packet.length < 5 || packet[0] !== H4_ACL || packet.length !== 5 + packet.readUInt16LE(3)) return undefined;
  return packet.readUInt16LE(1) & 0x0fff;
}

/** A little-endian 16-bit field at `offset` as a 12-bit connection handle, or undefined past the end. */
export function handleAt(packet: Buffer, offset: number): number | undefined {
  return packet.length >= offset + 2 ? packet.readUInt16LE(offset) & 0x0fff : undefined;
}

/** Command Complete (Vol 4 Part E §7.7.14) for `opcode` with `returnParams` (status first), one command credit. */
export function commandComplete(opcode: number, returnParams: Buffer): Buffer {
  const out = Buffer.alloc(6 + returnParams.length);
  out[0] = H4_EVENT;
  out[1] = EVT.COMMAND_COMPLETE;
  out[2] = 3 + returnParams.length;
  out[3] = 1;
  out.writeUInt16LE(opcode, 4);
  returnParams.copy(out, 6);
  return out;
}

/** A command packet. */
export function command(opcode: number, params: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(4 + params.length);
  out[0] = H4_COMMAND;
  out.writeUInt16LE(opcode, 1);
  out[3] = params.length;
  params.copy(out, 4);
  return out;
}

/** Number Of Completed Packets for the given (handle, count) pairs. */
export function completedPackets(pairs: ReadonlyArray<readonly [number, number]>): Buffer {
  const out = Buffer.alloc(4 + pairs.length * 4);
  out[0] = H4_EVENT;
  out[1] = EVT.NUMBER_OF_COMPLETED_PACKETS;
  out[2] = 1 + pairs.length * 4;
  out[3] = pairs.length;
  pairs.forEach(([handle, count], i) => {
    out.writeUInt16LE(handle, 4 + i * 4);
    out.writeUInt16LE(count, 6 + i * 4);
  });
  return out;
}

export function hex(packet: Buffer): string {
  return packet.toString('hex');
}
