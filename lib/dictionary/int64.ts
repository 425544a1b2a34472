/**
 * Signed 64-bit integers as the disappearing settings store them (8 bytes, big-endian, two's complement).
 * `bigint` end to end, and every conversion range-checked: `DataView.setBigInt64` would wrap silently.
 */
import { DictionaryError } from './errors';

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

export function checkInt64(value: bigint, where: string): bigint {
  if (!isInt64(value)) throw new DictionaryError('INT64_OUT_OF_RANGE', `${where}: ${value} is outside the signed 64-bit range`);
  return value;
}

export function readInt64(bytes: Uint8Array): bigint {
  if (bytes.length !== 8) throw new DictionaryError('VALUE_WRONG_LENGTH', `a signed 64-bit value has 8 bytes, got ${bytes.length}`);
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0, false);
}

export function int64Bytes(value: bigint, where = 'value'): Uint8Array {
  checkInt64(value, where);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, value, false);
  return out;
}

/** Decimal text, a safe integer or a bigint to a range-checked bigint (the JSON forms of the node and CLI). */
export function toInt64(value: unknown, where: string): bigint {
  let v: bigint;
  if (typeof value === 'bigint') v = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  else if (typeof value === 'string' && /^-?(0|[1-9][0-9]{0,19})$/.test(value)) v = BigInt(value);
  else throw new DictionaryError('INVALID_ARGUMENT', `${where}: expected an integer (decimal string, safe integer or bigint)`);
  return checkInt64(v, where);
}
