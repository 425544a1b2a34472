/**
 * Who may use the admin HTTP interface. Loopback alone does not keep a browser out: any page the developer opens can
 * send requests to 127.0.0.1, a `text/plain` POST needs no CORS preflight, and a rebound DNS name reaches loopback
 * with a foreign `Host`. So every request must name the listener itself as `Host`, carry no foreign `Origin`, and
 * (except the route index) bring the admin token as `Authorization: Bearer`; bodies must be `application/json`,
 * which a cross-origin page cannot send without a preflight this server never grants.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AdminRefusalCode = 'ADMIN_HOST_REFUSED' | 'ADMIN_ORIGIN_REFUSED' | 'ADMIN_UNAUTHORIZED' | 'ADMIN_UNSUPPORTED_MEDIA_TYPE';

export interface AdminRefusal {
  status: 401 | 403 | 415;
  code: AdminRefusalCode;
  message: string;
}

/** A token nobody has to choose: 32 random bytes, URL-safe so it pastes into a header or a shell variable as is. */
export function generateAdminToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The `Host` values that name this listener: every loopback spelling with its port (and without it on port 80). */
export function loopbackHosts(port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  const hosts = new Set(names.map((n) => `${n}:${port}`));
  if (port === 80) for (const n of names) hosts.add(n);
  return hosts;
}

export class AdminGuard {
  private readonly tokenDigest: Buffer;

  constructor(
    token: string,
    private readonly hosts: ReadonlySet<string>,
  ) {
    this.tokenDigest = digest(token);
  }

  /** The refusal for the checks every request passes (the route index included), or undefined. */
  checkCaller(req: IncomingMessage): AdminRefusal | undefined {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.hosts.has(host)) {
      return { status: 403, code: 'ADMIN_HOST_REFUSED', message: 'the Host header does not name this admin listener' };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.isOwnOrigin(origin)) {
      return { status: 403, code: 'ADMIN_ORIGIN_REFUSED', message: 'requests from another origin are refused' };
    }
    return undefined;
  }

  /** The refusal for a request without the admin token, or undefined. */
  checkToken(req: IncomingMessage): AdminRefusal | undefined {
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    if (match && crypto.timingSafeEqual(digest(match[1]), this.tokenDigest)) return undefined;
    return { status: 401, code: 'ADMIN_UNAUTHORIZED', message: 'send the admin token printed at start as "Authorization: Bearer TOKEN"' };
  }

  /** The refusal for a body that is not declared JSON, or undefined. */
  checkJsonBody(req: IncomingMessage): AdminRefusal | undefined {
    const type = req.headers['content-type'] ?? '';
    if (/^application\/json *(;|$)/i.test(type)) return undefined;
    return { status: 415, code: 'ADMIN_UNSUPPORTED_MEDIA_TYPE', message: 'POST bodies must be sent as Content-Type: application/json' };
  }

  private isOwnOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (a sandboxed or file: page) and anything unparsable
    }
    return url.protocol === 'http:' && this.hosts.has(url.host.toLowerCase()) && url.origin === origin.toLowerCase();
  }
}

function digest(text: string): Buffer {
  return crypto.createHash('sha256').update(text, 'utf8').digest();
}
