/**
 * The mutation engine shared by the fuzz tests and `npm run fuzz`: a seeded generator and the mutators that turn a
 * valid corpus input into a hostile one. Everything is deterministic from the seed, so a failure replays exactly.
 *
 * Byte mutations aim at what decoders get wrong: single bits, boundary byte values, inserted and deleted runs,
 * truncation, repeated slices, splices with another corpus input, and numbers planted where a length, count or index
 * is read (little- and big-endian u16/u32, oversized varints, off-by-one). JSON mutations change the document's
 * structure instead: removed, repeated and renamed keys, values of the wrong type, numbers past 2^53 and 2^64,
 * deep nesting, long and unpaired-surrogate strings.
 */

/** xorshift32: small, fast and the same on every machine. */
export class FuzzRng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }

  u32(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return n <= 0 ? 0 : this.u32() % n;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

/** Byte values with a meaning somewhere: zero, sign and varint boundaries, the wire-v1 magic, JSON punctuation. */
export const INTERESTING_BYTES = Object.freeze([
  0x00, 0x01, 0x02, 0x3f, 0x40, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xfe, 0xff, 0xf5, 0xf6, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x2d, 0x4f, 0x50, 0xa5, 0x5a,
]);

/** Numbers to plant where a length, count or index is read. */
const INTERESTING_NUMBERS = Object.freeze([0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x1000, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff]);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A length field made wrong: an extreme or off-by-one value in one of the encodings decoders read. */
function tweakLength(rng: FuzzRng, b: Uint8Array): Uint8Array {
  if (b.length === 0) return b;
  const at = rng.below(b.length);
  const out = Uint8Array.from(b);
  switch (rng.below(5)) {
    case 0: // off by one or a few, where a byte is a short length
      out[at] = (out[at] + rng.pick([1, -1, 2, -2, 0x80, 0x7f])) & 0xff;
      return out;
    case 1: {
      // little-endian u16 / u32
      const v = rng.chance(0.2) ? rng.u32() : rng.pick(INTERESTING_NUMBERS);
      const width = rng.chance(0.5) ? 2 : 4;
      for (let k = 0; k < width && at + k < out.length; k++) out[at + k] = (v >>> (8 * k)) & 0xff;
      return out;
    }
    case 2: {
      // big-endian u16 / u32
      const v = rng.chance(0.2) ? rng.u32() : rng.pick(INTERESTING_NUMBERS);
      const width = rng.chance(0.5) ? 2 : 4;
      for (let k = 0; k < width && at + k < out.length; k++) out[at + k] = (v >>> (8 * (width - 1 - k))) & 0xff;
      return out;
    }
    case 3: {
      // an oversized, overlong or unterminated LEB128 varint
      const v = rng.pick([
        [0xff, 0xff, 0xff, 0xff, 0x0f],
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
        [0x80, 0x00],
        [0xff, 0x7f],
      ]);
      return concatBytes(out.subarray(0, at), Uint8Array.from(v), out.subarray(at + (rng.chance(0.5) ? 1 : 0)));
    }
    default: {
      // a QUIC varint with the longest prefix (dictionary lengths), or its maximum
      const v = rng.pick([
        [0xbf, 0xff, 0xff, 0xff],
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0x40, 0x00],
        [0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],
      ]);
      return concatBytes(out.subarray(0, at), Uint8Array.from(v), out.subarray(at + 1));
    }
  }
}

/** One to four byte-level mutations of `input` (never modified); `corpus` feeds the splices. */
export function mutateBytes(rng: FuzzRng, input: Uint8Array, corpus: readonly Uint8Array[] = []): Uint8Array {
  let b: Uint8Array = Uint8Array.from(input);
  const rounds = 1 + rng.below(4);
  for (let r = 0; r < rounds; r++) {
    const at = b.length === 0 ? 0 : rng.below(b.length);
    switch (rng.below(11)) {
      case 0: // flip one bit
        if (b.length) b[at] ^= 1 << rng.below(8);
        break;
      case 1: // a boundary byte
        if (b.length) b[at] = rng.pick(INTERESTING_BYTES);
        break;
      case 2: // insert one to four random bytes
        b = concatBytes(b.subarray(0, at), rng.bytes(1 + rng.below(4)), b.subarray(at));
        break;
      case 3: // delete a run
        b = concatBytes(b.subarray(0, at), b.subarray(at + 1 + rng.below(rng.chance(0.8) ? 8 : 64)));
        break;
      case 4: // truncate
        b = b.subarray(0, at);
        break;
      case 5: // repeat a slice in place
        b = concatBytes(b.subarray(0, at), b.subarray(at, at + 1 + rng.below(32)), b.subarray(at));
        break;
      case 6: {
        // splice: our head, another input's tail
        if (corpus.length === 0) break;
        const other = rng.pick(corpus);
        b = concatBytes(b.subarray(0, at), other.subarray(other.length === 0 ? 0 : rng.below(other.length)));
        break;
      }
      case 7: {
        // crossover: another input's bytes over ours at the same offset
        if (corpus.length === 0) break;
        const other = rng.pick(corpus);
        const len = 1 + rng.below(24);
        const piece = other.subarray(at, at + len);
        b = Uint8Array.from(b);
        b.set(piece.subarray(0, Math.max(0, b.length - at)), at);
        break;
      }
      case 8:
      case 9:
        b = tweakLength(rng, b);
        break;
      default: // a random byte
        if (b.length) b[at] = rng.u32() & 0xff;
    }
  }
  return b;
}

/** Text the serializer copies verbatim, for numbers JSON.stringify cannot write (1e400, -0, 2^64). */
class RawJson {
  constructor(readonly text: string) {}
}

/** Marks a key that is written twice, the second time with the given value. */
const REPEAT = '\u0000repeat\u0000';

type Tree = null | boolean | number | string | RawJson | Tree[] | { [key: string]: Tree };

const HOSTILE_VALUES: readonly (() => Tree)[] = [
  () => null,
  () => true,
  () => 0,
  () => -1,
  () => 1.5,
  () => '',
  () => '0',
  () => [],
  () => ({}),
  () => new RawJson('1e400'),
  () => new RawJson('-0'),
  () => new RawJson('1.0'),
  () => new RawJson('9007199254740993'),
  () => new RawJson('18446744073709551615'),
  () => new RawJson('18446744073709551616'),
  () => new RawJson('-9223372036854775809'),
  () => new RawJson('4294967296'),
  () => '\ud800',
  () => '\u0000\u001f"\\',
  () => 'x'.repeat(5000),
  () => 'ü✓👋',
  () => new RawJson('['.repeat(200) + ']'.repeat(200)),
  () => new RawJson('{"a":'.repeat(150) + '1' + '}'.repeat(150)),
];

function serialize(v: Tree): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(serialize).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, value] of Object.entries(v)) {
      const key = k.startsWith(REPEAT) ? k.slice(REPEAT.length, k.lastIndexOf('\u0000')) : k;
      parts.push(`${JSON.stringify(key)}:${serialize(value)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Every object and array in the tree, with the tree itself. */
function containers(v: Tree, out: (Tree[] | { [key: string]: Tree })[] = []): (Tree[] | { [key: string]: Tree })[] {
  if (v === null || typeof v !== 'object' || v instanceof RawJson) return out;
  out.push(v);
  for (const child of Array.isArray(v) ? v : Object.values(v)) containers(child, out);
  return out;
}

function mutateTree(rng: FuzzRng, root: Tree, donors: readonly Tree[]): Tree {
  const all = containers(root);
  if (all.length === 0) return rng.pick(HOSTILE_VALUES)();
  const node = rng.pick(all);
  const donor = (): Tree => {
    const d = donors.length ? rng.pick(donors) : null;
    const pool = containers(d);
    if (pool.length === 0) return d;
    const from = rng.pick(pool);
    const values = Array.isArray(from) ? from : Object.values(from);
    // Always a copy: a shared subtree could later take in its own ancestor and make the tree a cycle.
    return structuredClone(values.length ? rng.pick(values) : from);
  };
  if (Array.isArray(node)) {
    const at = rng.below(node.length + 1);
    switch (rng.below(4)) {
      case 0:
        node.splice(at, 1);
        break;
      case 1:
        node.splice(at, 0, rng.pick(HOSTILE_VALUES)());
        break;
      case 2:
        if (node.length) node[Math.min(at, node.length - 1)] = donor();
        break;
      default:
        node.splice(at, 0, ...structuredClone(node.slice(0, 1 + rng.below(3))));
    }
    return root;
  }
  const keys = Object.keys(node);
  const key = keys.length ? rng.pick(keys) : 'x';
  switch (rng.below(8)) {
    case 0: // remove a key
      delete node[key];
      break;
    case 1: // the wrong type
    case 2:
      node[key] = rng.pick(HOSTILE_VALUES)();
      break;
    case 3: // a key written twice, the repeat holding another value
      node[`${REPEAT}${key}\u0000${rng.below(1000)}`] = rng.chance(0.5) ? structuredClone(node[key] ?? null) : rng.pick(HOSTILE_VALUES)();
      break;
    case 4: {
      // a renamed key (case, whitespace, a neighbour's name)
      const value = node[key];
      delete node[key];
      node[rng.pick([key.toUpperCase(), ` ${key}`, `${key}_`, key.slice(1), '__proto__', rng.pick(keys.length ? keys : ['y'])])] = value ?? null;
      break;
    }
    case 5: // a value from another document
      node[key] = donor();
      break;
    case 6: // wrapped in an array or an object
      node[key] = rng.chance(0.5) ? [node[key] ?? null] : { [key]: node[key] ?? null };
      break;
    default: // an unknown extra key
      node[rng.pick(['ext', 'v', 'unknown_field', '', 'x'.repeat(300)])] = rng.pick(HOSTILE_VALUES)();
  }
  return root;
}

/**
 * One to three structural mutations of a JSON document (falling back to byte mutation when the text does not parse),
 * and sometimes a byte mutation on top. `corpus` documents lend values and splices.
 */
export function mutateJson(rng: FuzzRng, input: Uint8Array, corpus: readonly Uint8Array[] = []): Uint8Array {
  let tree: Tree;
  try {
    tree = JSON.parse(Buffer.from(input).toString('utf8')) as Tree;
  } catch {
    return mutateBytes(rng, input, corpus);
  }
  const donors: Tree[] = [];
  for (let i = 0; i < 2 && corpus.length; i++) {
    try {
      donors.push(JSON.parse(Buffer.from(rng.pick(corpus)).toString('utf8')) as Tree);
    } catch {
      // a corpus entry that is not JSON lends nothing
    }
  }
  const rounds = 1 + rng.below(3);
  for (let r = 0; r < rounds; r++) tree = mutateTree(rng, tree, donors);
  let out: Uint8Array = Buffer.from(serialize(tree), 'utf8');
  if (rng.chance(0.1)) out = Buffer.from(` \n\t${Buffer.from(out).toString('utf8')}\r\n`, 'utf8');
  if (rng.chance(0.25)) out = mutateBytes(rng, out, corpus);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Hex of at most `max` bytes, with the full length when cut. */
export function hexPreview(bytes: Uint8Array, max = 96): string {
  const shown = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max)).toString('hex');
  return bytes.byteLength > max ? `${shown}… (${bytes.byteLength} bytes)` : `${shown} (${bytes.byteLength} bytes)`;
}
