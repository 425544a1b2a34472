/**
 * Welcome checks on a joiner's side (META-019, META-030), plus the parts of JOIN-060/DMS-002 the dictionary can
 * answer: a DM must carry its pair, and a joiner named in `joiner` must be one of it. A version floor above the
 * joiner's version holds the Welcome (JOIN-057) rather than rejecting it, so it is reported, not refused.
 */
import { type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError, WelcomeRejectedError } from './errors';
import { findKey } from './collections';
import { type InboxIdInput, inboxIdToText, parseInboxId } from './inbox-id';
import { validateStored } from './validate-value';
import { readVersionFloor, type VersionFloor } from './version-floor';
import { ConversationType, definitionFor, ID } from './well-known';
import { GroupView } from './group-view';

export interface WelcomeOptions {
  /** The joining inbox; checked against a DM's pair. */
  readonly joiner?: InboxIdInput;
  /** The joiner's own client version (SemVer), to report a hold under the version floor. */
  readonly clientVersion?: string;
}

export interface AcceptedWelcome {
  readonly ok: true;
  readonly conversationType: number;
  readonly creator: string;
  readonly dmMembers?: readonly string[];
  readonly versionFloor?: VersionFloor;
}

export type WelcomeResult = AcceptedWelcome | { readonly ok: false; readonly error: WelcomeRejectedError };

const IDENTITY = [ID.COMPONENT_REGISTRY, ID.CONVERSATION_TYPE, ID.CREATOR_INBOX_ID] as const;

export function validateWelcome(dictionary: DictionaryInput | undefined | null, options: WelcomeOptions = {}): WelcomeResult {
  const fail = (reason: string, rule: string, message: string): WelcomeResult => ({
    ok: false,
    error: new WelcomeRejectedError(reason, rule, message),
  });
  if (dictionary === undefined || dictionary === null) return fail('NO_DICTIONARY', 'META-019', 'the Welcome carries no app-data dictionary');
  let dict;
  try {
    dict = toDictionary(dictionary);
  } catch (err) {
    if (!(err instanceof DictionaryError)) throw err;
    return fail(err.code, 'META-019', `the dictionary does not decode: ${err.message}`);
  }
  for (const id of IDENTITY) {
    const def = definitionFor(id, undefined);
    const value = dict.get(id);
    if (!def) continue;
    if (value === undefined) return fail('MISSING_IDENTITY', 'META-019', `the dictionary lacks ${def.name}`);
    try {
      validateStored(def, value);
    } catch (err) {
      if (!(err instanceof DictionaryError)) throw err;
      return fail(err.code, 'META-019', `${def.name} does not decode: ${err.message}`);
    }
  }
  const view = new GroupView(dict);
  const type = view.conversationType() as number;
  const pairBytes = dict.get(ID.DM_MEMBERS);
  let dmMembers: string[] | undefined;
  if (pairBytes !== undefined) {
    const def = definitionFor(ID.DM_MEMBERS, undefined);
    try {
      if (def) dmMembers = (validateStored(def, pairBytes) ?? []).map((e) => inboxIdToText(e.key));
    } catch (err) {
      if (!(err instanceof DictionaryError)) throw err;
      return fail('DM_PAIR_INVALID', 'META-030', `DM_MEMBERS: ${err.message}`);
    }
    if (type !== ConversationType.DM) return fail('DM_PAIR_INVALID', 'META-030', 'DM_MEMBERS is present but the conversation is not a DM');
  } else if (type === ConversationType.DM) {
    return fail('DM_PAIR_MISSING', 'DMS-002', 'a DM without DM_MEMBERS');
  }
  if (options.joiner !== undefined && type === ConversationType.DM) {
    const joiner = parseInboxId(options.joiner, 'joiner');
    const pair = view.dmMembers();
    if (!pair || findKey(pair, joiner) < 0) return fail('JOINER_NOT_IN_PAIR', 'JOIN-060', 'the joiner is not one of the DM pair');
  }
  const creator = inboxIdToText((dict.get(ID.CREATOR_INBOX_ID) as Uint8Array).subarray(1));
  const out: { ok: true; conversationType: number; creator: string; dmMembers?: string[]; versionFloor?: VersionFloor } = {
    ok: true,
    conversationType: type,
    creator,
  };
  if (dmMembers) out.dmMembers = dmMembers;
  if (options.clientVersion !== undefined) out.versionFloor = readVersionFloor(dict, options.clientVersion);
  return out;
}
