/**
 * Where the media service lives (message-hub-client-guide.md §1): a deployment gives a media host, and the two routes
 * hang off it, `POST /media/upload` and `GET /health`. Users paste either the base (`https://media.example`, possibly
 * with a path prefix behind a reverse proxy) or the full upload URL, so both are accepted.
 */
import { MediaError } from './errors';

const UPLOAD_PATH = '/media/upload';

function parseBase(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MediaError('BAD_OPTIONS', `media URL is not a valid absolute URL: '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new MediaError('BAD_OPTIONS', `media URL must be http: or https:, got '${parsed.protocol}'`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    // Credentials in a URL end up in logs; the token belongs in the Authorization header.
    throw new MediaError('BAD_OPTIONS', 'media URL must not carry a user name or password; pass the token instead');
  }
  parsed.hash = '';
  parsed.search = '';
  let path = parsed.pathname.replace(/\/+$/, '');
  if (path.endsWith(UPLOAD_PATH)) path = path.slice(0, -UPLOAD_PATH.length);
  else if (path.endsWith('/health')) path = path.slice(0, -'/health'.length);
  parsed.pathname = path === '' ? '/' : path;
  return parsed;
}

function join(base: URL, route: string): URL {
  const out = new URL(base.href);
  out.pathname = base.pathname.replace(/\/+$/, '') + route;
  return out;
}

/** The media service's base, with `/media/upload` or `/health` stripped when given. */
export function mediaBaseUrl(url: string): URL {
  return parseBase(url);
}

export function uploadUrl(url: string): URL {
  return join(parseBase(url), UPLOAD_PATH);
}

export function healthUrl(url: string): URL {
  return join(parseBase(url), '/health');
}

/**
 * A token is opaque (§2) but must fit in one header line; it is checked here so that the failure message can say
 * what is wrong without ever quoting the token.
 */
export function authorizationHeader(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  if (typeof token !== 'string') throw new MediaError('BAD_OPTIONS', 'token must be a string');
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new MediaError('BAD_OPTIONS', 'token contains spaces, control or non-ASCII characters; a bearer token is one printable ASCII word');
  }
  return `Bearer ${token}`;
}
