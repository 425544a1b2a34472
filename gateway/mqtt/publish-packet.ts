/**
 * A PUBLISH packet (MQTT 3.1.1 and 5) in one buffer, for the gateway's hot path. mqtt.js hands each packet to the
 * socket in six to ten small writes and builds a debug record for each, which was a fifth of what the gateway
 * allocated per mesh message (docs/gateway.md, "Publishing without mqtt.js's packet writer"); here a packet is one
 * allocation and one write. Covers the properties the gateway sets; `undefined` for any other, so the caller can
 * leave that publish to mqtt.js.
 */

export interface PublishPacket {
  topic: string;
  payload: Buffer | string;
  qos: 0 | 1;
  retain: boolean;
  /** 1–65535 for QoS 1; ignored for QoS 0. */
  packetId: number;
  /** MQTT 5 only. */
  properties?: PublishProperties | undefined;
}

export interface PublishProperties {
  payloadFormatIndicator?: boolean;
  messageExpiryInterval?: number;
  contentType?: string;
  responseTopic?: string;
  correlationData?: Buffer;
  userProperties?: Record<string, string | string[]>;
}

const PUBLISH = 0x30;
const QOS1 = 0x02;
const RETAIN = 0x01;
const MAX_REMAINING = 268_435_455;
const MAX_STRING = 65_535;

/** Bytes of MQTT's variable byte integer for `n`. */
function varIntBytes(n: number): number {
  return n < 128 ? 1 : n < 16_384 ? 2 : n < 2_097_152 ? 3 : 4;
}

function writeVarInt(buf: Buffer, at: number, n: number): number {
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    buf[at++] = byte;
  } while (n > 0);
  return at;
}

function writeString(buf: Buffer, at: number, s: string, bytes: number): number {
  buf.writeUInt16BE(bytes, at);
  buf.write(s, at + 2, bytes, 'utf8');
  return at + 2 + bytes;
}

/** A string's UTF-8 length, or -1 over MQTT's 65 535-byte limit. */
function stringBytes(s: string): number {
  const n = Buffer.byteLength(s, 'utf8');
  return n > MAX_STRING ? -1 : n;
}

/** Bytes of the properties (without their length prefix), or -1 for one this file does not write. */
function propertiesBytes(p: PublishProperties): number {
  let size = 0;
  for (const key in p) {
    const value = p[key as keyof PublishProperties];
    if (value === undefined) continue;
    switch (key) {
      case 'payloadFormatIndicator':
        size += 2;
        break;
      case 'messageExpiryInterval':
        size += 5;
        break;
      case 'contentType':
      case 'responseTopic': {
        const n = stringBytes(value as string);
        if (n < 0) return -1;
        size += 3 + n;
        break;
      }
      case 'correlationData':
        if ((value as Buffer).length > MAX_STRING) return -1;
        size += 3 + (value as Buffer).length;
        break;
      case 'userProperties':
        for (const name in value as Record<string, string | string[]>) {
          const nameBytes = stringBytes(name);
          if (nameBytes < 0) return -1;
          const v = (value as Record<string, string | string[]>)[name]!;
          for (const one of Array.isArray(v) ? v : [v]) {
            const valueBytes = stringBytes(String(one));
            if (valueBytes < 0) return -1;
            size += 5 + nameBytes + valueBytes;
          }
        }
        break;
      default:
        return -1;
    }
  }
  return size;
}

function writeProperties(buf: Buffer, at: number, p: PublishProperties): number {
  for (const key in p) {
    const value = p[key as keyof PublishProperties];
    if (value === undefined) continue;
    switch (key) {
      case 'payloadFormatIndicator':
        buf[at++] = 0x01;
        buf[at++] = value ? 1 : 0;
        break;
      case 'messageExpiryInterval':
        buf[at++] = 0x02;
        buf.writeUInt32BE(value as number, at);
        at += 4;
        break;
      case 'contentType':
      case 'responseTopic':
        buf[at++] = key === 'contentType' ? 0x03 : 0x08;
        at = writeString(buf, at, value as string, Buffer.byteLength(value as string));
        break;
      case 'correlationData':
        buf[at++] = 0x09;
        buf.writeUInt16BE((value as Buffer).length, at);
        (value as Buffer).copy(buf, at + 2);
        at += 2 + (value as Buffer).length;
        break;
      case 'userProperties':
        for (const name in value as Record<string, string | string[]>) {
          const v = (value as Record<string, string | string[]>)[name]!;
          for (const one of Array.isArray(v) ? v : [v]) {
            buf[at++] = 0x26;
            at = writeString(buf, at, name, Buffer.byteLength(name));
            const s = String(one);
            at = writeString(buf, at, s, Buffer.byteLength(s));
          }
        }
        break;
    }
  }
  return at;
}

/**
 * The packet's bytes, or undefined when it has a property not written here (or a string or the packet over MQTT's
 * size limits): mqtt.js then encodes it, and reports what it refuses.
 */
export function encodePublish(p: PublishPacket, version: 4 | 5): Buffer | undefined {
  const topicBytes = stringBytes(p.topic);
  if (topicBytes < 0) return undefined;
  const payloadBytes = typeof p.payload === 'string' ? Buffer.byteLength(p.payload, 'utf8') : p.payload.length;
  let propsBytes = 0;
  if (version === 5) {
    propsBytes = p.properties ? propertiesBytes(p.properties) : 0;
    if (propsBytes < 0) return undefined;
  }
  const remaining = 2 + topicBytes + (p.qos ? 2 : 0) + (version === 5 ? varIntBytes(propsBytes) + propsBytes : 0) + payloadBytes;
  if (remaining > MAX_REMAINING) return undefined;
  const buf = Buffer.allocUnsafe(1 + varIntBytes(remaining) + remaining);
  buf[0] = PUBLISH | (p.qos ? QOS1 : 0) | (p.retain ? RETAIN : 0);
  let at = writeVarInt(buf, 1, remaining);
  at = writeString(buf, at, p.topic, topicBytes);
  if (p.qos) {
    buf.writeUInt16BE(p.packetId, at);
    at += 2;
  }
  if (version === 5) {
    at = writeVarInt(buf, at, propsBytes);
    if (p.properties) at = writeProperties(buf, at, p.properties);
  }
  if (typeof p.payload === 'string') buf.write(p.payload, at, payloadBytes, 'utf8');
  else p.payload.copy(buf, at);
  return buf;
}
