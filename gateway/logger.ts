/**
 * Structured logs: pino, one JSON line per event on stdout (journald keeps them), namespaced by `ns`
 * (`router`, `mqtt`, `radio:ble0`, …). Secrets never reach a line: known secret keys are censored by pino's
 * redaction, and every configured secret value is cut from messages as a second line of defence.
 * Mesh and hub text in a line is printable: JSON escapes the C0 controls but leaves DEL, C1 controls, U+2028/2029
 * and the bidi controls raw, which `journalctl` or `tail` would hand to a terminal; each line is passed through
 * `printableJson` (lib/printable.ts) on its way out, which keeps it the same JSON.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { printableJson } from '../lib/printable';
import { MIN_SECRET_CHARS, REDACTED, redactSecrets } from '../lib/redact';

export type { Logger } from 'pino';

const CENSOR = REDACTED;
const SECRET_PATHS = [
  'password',
  'token',
  'key_passphrase',
  'authorization',
  '*.password',
  '*.token',
  '*.key_passphrase',
  '*.authorization',
  'headers.authorization',
];

export interface LoggerOptions {
  level: string;
  /** Secret values to scrub from any message text (the MQTT password, the hub token). */
  secrets?: readonly string[];
  destination?: DestinationStream;
  /** Fields on every line (the gateway id). */
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= MIN_SECRET_CHARS);
  return pino(
    {
      level: options.level,
      base: { ...(options.base ?? {}) },
      redact: { paths: SECRET_PATHS, censor: CENSOR },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        ...(secrets.length
          ? {
              logMethod(args, method) {
                // Only strings can carry a pasted secret (an error message quoting a URL with credentials).
                const cleaned = args.map((a) => (typeof a === 'string' ? redactSecrets(a, secrets) : a)) as typeof args;
                method.apply(this, cleaned);
              },
            }
          : {}),
        streamWrite: printableJson,
      },
      serializers: {
        err: (err: unknown) => {
          const e = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
          if (secrets.length && typeof e.message === 'string') e.message = redactSecrets(e.message, secrets);
          if (secrets.length && typeof e.stack === 'string') e.stack = redactSecrets(e.stack, secrets);
          return e;
        },
      },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** A logger that drops everything (tests that do not look at logs, `--check`). */
export function silentLogger(): Logger {
  // Writes nowhere even when a level is set on it later (the log-level control reaches every logger).
  return pino({ level: 'silent' }, { write: () => undefined });
}

// pino's children copy their level when made; a level chosen at run time (Home Assistant's log-level select) must
// reach every one of them, so each root remembers its family (weakly: a stopped radio's logger may go).
const rootOf = new WeakMap<Logger, Logger>();
const family = new WeakMap<Logger, Set<WeakRef<Logger>>>();

export function child(logger: Logger, ns: string): Logger {
  return adopt(logger, logger.child({ ns }));
}

/** Registers `made` (a child of `parent`) so that `setLogLevel` on their root reaches it. */
export function adopt(parent: Logger, made: Logger): Logger {
  const root = rootOf.get(parent) ?? parent;
  rootOf.set(made, root);
  let members = family.get(root);
  if (!members) family.set(root, (members = new Set()));
  members.add(new WeakRef(made));
  return made;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Sets the level of `logger`'s root and of every logger made from it with `child`. */
export function setLogLevel(logger: Logger, level: LogLevel): void {
  const root = rootOf.get(logger) ?? logger;
  root.level = level;
  const members = family.get(root);
  for (const ref of [...(members ?? [])]) {
    const member = ref.deref();
    if (member) member.level = level;
    else members!.delete(ref);
  }
}
