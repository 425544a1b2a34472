/** What `--check --online` found when it reached for a service with the configured credentials. */
export interface OnlineOutcome {
  /** `mqtt`, `hub`: the section it checked. */
  service: string;
  ok: boolean;
  /** On failure: `refused` (credentials), `unreachable` (no answer, name or port wrong), `tls` (certificate or handshake), `timeout`, `error`. */
  kind?: 'refused' | 'unreachable' | 'tls' | 'timeout' | 'error';
  /** One line for a person: what answered, or what failed and what to look at. Never a secret. */
  detail: string;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** A socket error's class: TLS (certificate, handshake) or unreachable; `error` for anything else. */
export function networkKind(err: { code?: unknown; message?: string }): 'unreachable' | 'tls' | 'error' {
  const code = typeof err.code === 'string' ? err.code : '';
  if (UNREACHABLE.has(code)) return 'unreachable';
  if (/^ERR_(TLS|SSL)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME/.test(code) || /certificate|tls|ssl|handshake/i.test(err.message ?? '')) return 'tls';
  return 'error';
}
