/**
 * The one way a known secret is cut out of text we did not write: a server's reason that echoes the token we
 * presented ("invalid token: Bearer …"), an error message quoting a URL with a password. Every occurrence of each
 * secret becomes `[redacted]`, so "Bearer <token>" reads "Bearer [redacted]". A secret shorter than
 * `MIN_SECRET_CHARS` is ignored: cutting a two-letter password out of every line would garble ordinary words.
 */
export const REDACTED = '[redacted]';
export const MIN_SECRET_CHARS = 4;

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= MIN_SECRET_CHARS && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

// `scheme://user:password@host…`: the password of a URL's userinfo (the user name stays: it tells which login).
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):([^/?#@]*)@/i;
// Query parameters that carry credentials by convention.
const SECRET_PARAM = /([?&](?:token|access_token|auth|authorization|key|api_key|apikey|password|pass|secret|signature|sig)=)([^&#]*)/gi;

/**
 * The one way a URL is shown (logs, status page, `--print-config`, `--check`): its password and credential-looking
 * query values become `[redacted]`, everything else stays as written. Works on any text (an unparseable URL too), so
 * it can run over every string value of a configuration.
 */
export function redactUrl(text: string): string {
  return text
    .replace(URL_PASSWORD, (_all, head: string, password: string) => (password === '' ? `${head}:@` : `${head}:${REDACTED}@`))
    .replace(SECRET_PARAM, (_all, name: string, value: string) => (value === '' ? name : `${name}${REDACTED}`));
}

/** A URL's password as written and percent-decoded, for the secrets to scrub from log lines; empty when none. */
export function urlPasswords(text: string): string[] {
  const raw = URL_PASSWORD.exec(text)?.[2];
  if (!raw) return [];
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: the text as written is what a log line would quote.
  }
  return decoded === raw ? [raw] : [decoded, raw];
}
