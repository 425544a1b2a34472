/**
 * The one error shape of the project: a stable machine `code` beside a human message.
 *
 * Every module of `lib/` subclasses this once (MeshDecodeError, DictionaryError, HubError, MediaError, …) so that a
 * caller can branch on `code` without parsing text, and a Node-RED Catch node sees the same `code` on `msg.error`.
 */
export class CodedError<Code extends string = string> extends Error {
  /** A module names its codes as a union (`class HubError extends CodedError<HubErrorCode> {}`). */
  readonly code: Code;
  /** Extra facts for logs and tests; never secrets. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: Code, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  toJSON(): { name: string; code: string; message: string; details?: Readonly<Record<string, unknown>> } {
    return this.details === undefined
      ? { name: this.name, code: this.code, message: this.message }
      : { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** True for any error of ours, whatever its subclass. */
export function isCodedError(value: unknown): value is CodedError {
  return value instanceof CodedError;
}
