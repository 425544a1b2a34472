/**
 * The version floor as an app sees it (META-062): the floor MIN_SUPPORTED_PROTOCOL_VERSION holds and whether the
 * group is paused for a client of `clientVersion`. A floor that is not a §2 version pauses the group: GMOD-027
 * owns malformed-floor handling and we fail closed rather than process commits we may not understand.
 */
import { utf8DecodeExact } from '../bytes';
import { type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { compareSemVer, parseNormalVersion, parseSemVer } from './semver';
import { ID } from './well-known';

export interface VersionFloor {
  /** The stored floor text; absent when the group has none. */
  readonly floor?: string;
  readonly paused: boolean;
  /** The floor is present but not a Semantic Versioning §2 version. */
  readonly malformed: boolean;
}

export function readVersionFloor(dictionary: DictionaryInput, clientVersion: string): VersionFloor {
  const client = parseSemVer(clientVersion);
  if (!client) throw new DictionaryError('INVALID_ARGUMENT', `client version '${clientVersion}' is not a Semantic Versioning 2.0.0 version`);
  const raw = toDictionary(dictionary).get(ID.MIN_SUPPORTED_PROTOCOL_VERSION);
  if (raw === undefined) return { paused: false, malformed: false };
  const text = utf8DecodeExact(raw);
  const floor = text === undefined ? undefined : parseNormalVersion(text);
  if (!floor) return { floor: text ?? Buffer.from(raw).toString('hex'), paused: true, malformed: true };
  return { floor: text, paused: compareSemVer(floor, client) > 0, malformed: false };
}
