/**
 * HCI numbers the virtual controller speaks (Bluetooth Core 5.x, Vol 4 Part A for the H4 packet indicators and
 * Part E for commands, events and error codes), and encoders for the events it sends.
 */

/** H4 packet indicators (Vol 4 Part A 2). */
export const H4 = Object.freeze({ COMMAND: 0x01, ACL: 0x02, EVENT: 0x04 });

export const opcode = (ogf: number, ocf: number): number => (ogf << 10) | ocf;

/** Command opcodes (Vol 4 Part E 7). */
export const OP = Object.freeze({
  DISCONNECT: opcode(0x01, 0x0006),
  SET_EVENT_MASK: opcode(0x03, 0x0001),
  RESET: opcode(0x03, 0x0003),
  SET_EVENT_FILTER: opcode(0x03, 0x0005),
  READ_LE_HOST_SUPPORTED: opcode(0x03, 0x006c),
  WRITE_LE_HOST_SUPPORTED: opcode(0x03, 0x006d),
  READ_LOCAL_VERSION: opcode(0x04, 0x0001),
  READ_LOCAL_COMMANDS: opcode(0x04, 0x0002),
  READ_LOCAL_FEATURES: opcode(0x04, 0x0003),
  READ_BUFFER_SIZE: opcode(0x04, 0x0005),
  READ_BD_ADDR: opcode(0x04, 0x0009),
  READ_RSSI: opcode(0x05, 0x0005),
  LE_SET_EVENT_MASK: opcode(0x08, 0x0001),
  LE_READ_BUFFER_SIZE: opcode(0x08, 0x0002),
  LE_READ_LOCAL_FEATURES: opcode(0x08, 0x0003),
  LE_SET_RANDOM_ADDRESS: opcode(0x08, 0x0005),
  LE_SET_ADV_PARAMS: opcode(0x08, 0x0006),
  LE_READ_ADV_TX_POWER: opcode(0x08, 0x0007),
  LE_SET_ADV_DATA: opcode(0x08, 0x0008),
  LE_SET_SCAN_RSP_DATA: opcode(0x08, 0x0009),
  LE_SET_ADV_ENABLE: opcode(0x08, 0x000a),
  LE_SET_SCAN_PARAMS: opcode(0x08, 0x000b),
  LE_SET_SCAN_ENABLE: opcode(0x08, 0x000c),
  LE_CREATE_CONN: opcode(0x08, 0x000d),
  LE_CREATE_CONN_CANCEL: opcode(0x08, 0x000e),
  LE_CONN_UPDATE: opcode(0x08, 0x0013),
  LE_LTK_NEG_REPLY: opcode(0x08, 0x001b),
  LE_SET_DATA_LENGTH: opcode(0x08, 0x0022),
  LE_READ_DEFAULT_DATA_LENGTH: opcode(0x08, 0x0023),
  LE_WRITE_DEFAULT_DATA_LENGTH: opcode(0x08, 0x0024),
  LE_READ_MAX_DATA_LENGTH: opcode(0x08, 0x002f),
  LE_SET_PHY: opcode(0x08, 0x0032),
});

/** Event codes (Vol 4 Part E 7.7). */
export const EVT = Object.freeze({
  DISCONNECTION_COMPLETE: 0x05,
  COMMAND_COMPLETE: 0x0e,
  COMMAND_STATUS: 0x0f,
  HARDWARE_ERROR: 0x10,
  NUMBER_OF_COMPLETED_PACKETS: 0x13,
  LE_META: 0x3e,
});

/** LE Meta subevent codes (Vol 4 Part E 7.7.65). */
export const LE_EVT = Object.freeze({
  CONNECTION_COMPLETE: 0x01,
  ADVERTISING_REPORT: 0x02,
  CONNECTION_UPDATE_COMPLETE: 0x03,
  DATA_LENGTH_CHANGE: 0x07,
});

/** Error codes (Vol 1 Part F). */
export const ERR = Object.freeze({
  SUCCESS: 0x00,
  UNKNOWN_COMMAND: 0x01,
  UNKNOWN_CONNECTION_ID: 0x02,
  HARDWARE_FAILURE: 0x03,
  CONNECTION_TIMEOUT: 0x08,
  COMMAND_DISALLOWED: 0x0c,
  CONNECTION_ALREADY_EXISTS: 0x0b,
  INVALID_PARAMETERS: 0x12,
  REMOTE_USER_TERMINATED: 0x13,
  LOCAL_HOST_TERMINATED: 0x16,
  UNSUPPORTED_REMOTE_FEATURE: 0x1a,
  PIN_OR_KEY_MISSING: 0x06,
  CONNECTION_FAILED_TO_ESTABLISH: 0x3e,
});

/** Legacy advertising PDU types as the LE Set Advertising Parameters command names them. */
export const ADV_TYPE = Object.freeze({ ADV_IND: 0x00, ADV_DIRECT_IND: 0x01, ADV_SCAN_IND: 0x02, ADV_NONCONN_IND: 0x03 });
/** Event_Type values of an LE Advertising Report. */
export const REPORT_TYPE = Object.freeze({ ADV_IND: 0x00, ADV_DIRECT_IND: 0x01, ADV_SCAN_IND: 0x02, ADV_NONCONN_IND: 0x03, SCAN_RSP: 0x04 });

/** ACL Packet_Boundary_Flag values (Vol 4 Part E 5.4.2). */
export const PB = Object.freeze({ FIRST_NON_FLUSHABLE: 0b00, CONTINUING: 0b01, FIRST_FLUSHABLE: 0b10 });

export function event(code: number, params: Buffer): Buffer {
  return Buffer.concat([Buffer.of(H4.EVENT, code, params.length), params]);
}

/** Command Complete with Num_HCI_Command_Packets 1 (the UART driver waits for exactly that after Reset). */
export function commandComplete(op: number, returnParams: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt8(1, 0);
  head.writeUInt16LE(op, 1);
  return event(EVT.COMMAND_COMPLETE, Buffer.concat([head, returnParams]));
}

export function commandStatus(op: number, status: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt8(status, 0);
  p.writeUInt8(1, 1);
  p.writeUInt16LE(op, 2);
  return event(EVT.COMMAND_STATUS, p);
}

export function leMeta(subevent: number, params: Buffer): Buffer {
  return event(EVT.LE_META, Buffer.concat([Buffer.of(subevent), params]));
}

export function disconnectionComplete(handle: number, reason: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt8(ERR.SUCCESS, 0);
  p.writeUInt16LE(handle, 1);
  p.writeUInt8(reason, 3);
  return event(EVT.DISCONNECTION_COMPLETE, p);
}

export function numberOfCompletedPackets(counts: ReadonlyMap<number, number>): Buffer {
  const p = Buffer.alloc(1 + counts.size * 4);
  p.writeUInt8(counts.size, 0);
  let at = 1;
  for (const [handle, n] of counts) {
    p.writeUInt16LE(handle, at);
    p.writeUInt16LE(n, at + 2);
    at += 4;
  }
  return event(EVT.NUMBER_OF_COMPLETED_PACKETS, p);
}

export function aclPacket(handle: number, pb: number, data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(H4.ACL, 0);
  head.writeUInt16LE((handle & 0x0fff) | (pb << 12), 1);
  head.writeUInt16LE(data.length, 3);
  return Buffer.concat([head, data]);
}

/** A BD_ADDR as written `aa:bb:cc:dd:ee:ff` to the little-endian bytes HCI carries, and back. */
export function addressBytes(address: string): Buffer {
  return Buffer.from(address.replace(/:/g, ''), 'hex').reverse();
}

export function addressString(bytes: Buffer): string {
  return Buffer.from(bytes)
    .reverse()
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1:');
}
