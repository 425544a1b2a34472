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
