/**
 * The reserved content prefixes of the control plane (mesh-reference-facts.md §5 "Prefixes").
 *
 * Content starting with any internal prefix is protocol traffic, never application text: the composer refuses it from
 * applications, and a receiver routes it to the control gate. Matching is `startsWith`, so `__SVC_` alone reserves
 * every name under it. Gated = internal minus the two data-plane prefixes, which MLS authenticates after the gate.
 */

export const INTERNAL_PREFIXES = Object.freeze([
  '__MLS_KEY_PKG__',
  '__MLS_WELCOME__',
  '__MLS_ENC__',
  '__MLS_CONFIRM_PROBE__',
  '__MLS_CONFIRM_ACK__',
  '__MLS_ENC_CONFIRM__',
  '__RICH_V1__',
  '__DATA_V1__',
  '__CONN_REQ__',
  '__CONN_ACC__',
  '__CONN_REJ__',
  '__CONN_CAN__',
  '__GROUP_CREATED__',
  '__GROUP_MSG__',
  '__GROUP_MEMBER_ADDED__',
  '__GROUP_MEMBER_REMOVED__',
  '__GROUP_INFO__',
  '__USER_GROUPS__',
  '__GROUP_ERROR__',
  '__GRP_MLS_MSG__',
  '__GRP_MLS_WELCOME__',
  '__GRP_MLS_COMMIT__',
  '__GRP_MLS_LEAVE__',
  '__GRP_RELAY_REG__',
  '__GRP_RELAY_BCAST__',
  '__GRP_ROLE_CHG__',
  '__GRP_RENAME__',
  '__PRESENCE__',
  '__TYPING__',
  '__READ_RECEIPT__',
  // Custody receipts (the reference's docs/spec/custody.md): a signature-gated control frame like the rest.
  '__CUSTODY_RECEIPT__',
  '__SVC_',
  '__SVC_DISC_Q__',
  '__SVC_DISC_R__',
  '__SVC_REQ__',
  '__SVC_RESP__',
] as const);

/** Authenticated by MLS after the gate, so exempt from the control signature. */
export const DATA_PLANE_PREFIXES = Object.freeze(['__MLS_ENC__', '__GROUP_MSG__'] as const);

/**
 * Answers the relay server originates; no peer holds a key for them. The gate accepts them unsigned only when they
 * arrive over the internet transport with no transport peer identity, which is what a locally synthesized relay
 * answer looks like.
 */
export const RELAY_ANSWER_PREFIXES = Object.freeze([
  '__GROUP_CREATED__',
  '__GROUP_MEMBER_ADDED__',
  '__GROUP_MEMBER_REMOVED__',
  '__GROUP_INFO__',
  '__USER_GROUPS__',
  '__GROUP_ERROR__',
] as const);

const UNDERSCORE = 0x5f;

/**
 * Asked of every message the gateway takes, several times: an index loop (a `for…of` over the frozen list made an
 * iterator per call), and nothing at all for content that does not open with `_`, as every prefix does.
 */
function startsWithAny(content: string, prefixes: readonly string[]): boolean {
  if (content.charCodeAt(0) !== UNDERSCORE) return false;
  for (let i = 0; i < prefixes.length; i++) if (content.startsWith(prefixes[i]!)) return true;
  return false;
}

/** Content that belongs to the protocol, not to an application. */
export function isInternalContent(content: string): boolean {
  return startsWithAny(content, INTERNAL_PREFIXES);
}

/** Content the control gate must pass before anything acts on it. */
export function isGatedControlContent(content: string): boolean {
  return isInternalContent(content) && !startsWithAny(content, DATA_PLANE_PREFIXES);
}

export function isRelayAnswerContent(content: string): boolean {
  return startsWithAny(content, RELAY_ANSWER_PREFIXES);
}
