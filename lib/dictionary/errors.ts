/**
 * The errors of lib/dictionary (group-metadata-dictionary.md).
 *
 * Decoders and validators throw `DictionaryError` and nothing else, whatever the input. `applyCommit` never
 * throws for a proposal's sake: it returns one `CommitRejectedError`, whose `code` is the same for every cause
 * (the spec's "one error kind" a sender sees, Known limitations) while `reason` and `rule` name the cause for
 * logs and tests. Codes and reasons are stable strings listed in docs/dictionary.md.
 */
import { CodedError } from '../coded-error';

export class DictionaryError extends CodedError {}

/** The one sender-facing kind of an AppDataUpdate rejection. */
export const COMMIT_REJECTED = 'COMMIT_REJECTED';

/** A Welcome that META-019 or META-030 makes a terminal rejection (JOIN-048). */
export const WELCOME_REJECTED = 'WELCOME_REJECTED';

export class CommitRejectedError extends DictionaryError {
  /** Internal reason code: why the commit was refused (a decoder code or an apply-level reason). */
  readonly reason: string;
  /** The spec rule that demands the rejection, e.g. `META-013`. */
  readonly rule: string;

  constructor(reason: string, rule: string, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(COMMIT_REJECTED, message, { reason, rule, ...details }, options);
    this.reason = reason;
    this.rule = rule;
  }
}

export class WelcomeRejectedError extends DictionaryError {
  readonly reason: string;
  readonly rule: string;

  constructor(reason: string, rule: string, message: string, details?: Record<string, unknown>) {
    super(WELCOME_REJECTED, message, { reason, rule, ...details });
    this.reason = reason;
    this.rule = rule;
  }
}

/** Which rule a decoder or validator code belongs to, so a rejection built from it names its rule. */
export const CODE_RULES: Readonly<Record<string, string>> = {
  TRUNCATED: 'META-010',
  TRAILING_BYTES: 'META-010',
  VARINT_INVALID_PREFIX: 'META-010',
  VARINT_NON_MINIMAL: 'META-010',
  QUIC_VARINT_NON_MINIMAL: 'META-005',
  COMPONENT_ID_TOO_LARGE: 'META-005',
  INBOX_ID_VERSION: 'META-011',
  SNAPSHOT_NOT_CANONICAL: 'META-012',
  UNKNOWN_MUTATION_TYPE: 'META-010',
  UTF8_INVALID: 'META-010',
  PROTOBUF_MALFORMED: 'META-014',
  DICTIONARY_NOT_CANONICAL: 'META-010',
  UNKNOWN_OPERATION: 'GMOD-030',
  LENGTH_TOO_LARGE: 'META-010',
  VALUE_TOO_LONG: 'META-010',
  VALUE_WRONG_LENGTH: 'META-010',
  SEMVER_INVALID: 'META-010',
  CONVERSATION_TYPE_INVALID: 'META-010',
  GLOBAL_BOUND_EXCEEDED: 'META-068',
  DM_PAIR_INVALID: 'META-030',
  DELTA_INSERT_PRESENT: 'META-013',
  DELTA_KEY_ABSENT: 'META-013',
  DELTA_HASH_UNRESOLVED: 'META-013',
};
