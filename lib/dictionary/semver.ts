/**
 * Semantic Versioning 2.0.0 as the version floor needs it (META-062; GMOD-027 owns the comparison).
 *
 * The floor itself is a §2 normal version `X.Y.Z` (no leading zeros); a client version may also carry §9
 * pre-release and §10 build parts. Precedence follows §11. Numeric parts are compared as digit strings (length,
 * then digits), so a floor of any size compares exactly and costs no big-number parsing.
 */

export interface SemVer {
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  readonly prerelease: readonly string[];
  readonly build: readonly string[];
}

const NUM = '(0|[1-9][0-9]*)';
const PRE_ID = '(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)';
const BUILD_ID = '[0-9A-Za-z-]+';
const NORMAL = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}$`);
const FULL = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+(${BUILD_ID}(?:\\.${BUILD_ID})*))?$`);

/** §2 only: what MIN_SUPPORTED_PROTOCOL_VERSION holds. */
export function parseNormalVersion(text: string): SemVer | undefined {
  const m = NORMAL.exec(text);
  return m ? { major: m[1], minor: m[2], patch: m[3], prerelease: [], build: [] } : undefined;
}

/** A full SemVer 2.0.0 version (a client's own version may be a pre-release). */
export function parseSemVer(text: string): SemVer | undefined {
  const m = FULL.exec(text);
  if (!m) return undefined;
  return { major: m[1], minor: m[2], patch: m[3], prerelease: m[4] ? m[4].split('.') : [], build: m[5] ? m[5].split('.') : [] };
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

const NUMERIC = /^[0-9]+$/;

/** §11 precedence; build metadata is ignored. Negative, zero or positive like a comparator. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const core = compareDigits(a.major, b.major) || compareDigits(a.minor, b.minor) || compareDigits(a.patch, b.patch);
  if (core !== 0) return Math.sign(core);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === y) continue;
    const xn = NUMERIC.test(x);
    const yn = NUMERIC.test(y);
    if (xn && yn) return Math.sign(compareDigits(x, y));
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

export function formatSemVer(v: SemVer): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length > 0) out += `-${v.prerelease.join('.')}`;
  if (v.build.length > 0) out += `+${v.build.join('.')}`;
  return out;
}
