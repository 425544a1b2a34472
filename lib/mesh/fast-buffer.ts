/**
 * A Buffer view over any Uint8Array, typed with the slice methods Node's own `Buffer#toString` dispatches to.
 * Calling them directly skips the encoding-name lookup and argument checks, which shows up on the decode hot path
 * (bench/mesh.bench.ts). They have been on `Buffer.prototype` since Node 0.x and remain there in every current line;
 * @types/node just doesn't declare them. Callers check bounds before calling.
 */
export type FastBuffer = Buffer & {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
  base64Slice(start: number, end: number): string;
};

/** Zero-copy: shares memory with `bytes`. */
export function fastBuffer(bytes: Uint8Array): FastBuffer {
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as FastBuffer;
}
