/**
 * Reading a media reply (message-hub-client-guide.md §15.3): `{ code, msg, data? }`, where `code == 0` is success and
 * anything else is a business error. The decision rests on `code`; the HTTP status only matters when the body is
 * not an envelope at all. Nothing here throws: the caller gets a fragment or a `MediaError` as a value.
 */
import { MediaError, errorFromEnvelope, errorFromStatus } from './errors';
import type { MediaFragment } from './fragment';

export type ReplyOutcome = { ok: true; fragment: MediaFragment } | { ok: false; error: MediaError };

const NUMERIC_FIELDS = ['size', 'width', 'height', 'duration'] as const;
const TEXT_FIELDS = ['name', 'mime'] as const;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Keeps exactly the §10.1 fields of a media fragment, each with its documented type; the hub drops any other field
 * on relay (§10.4), so passing one on would only mislead the flow that reads it.
 */
function readFragment(data: unknown): MediaFragment | undefined {
  if (!isRecord(data)) return undefined;
  const { kind, url } = data;
  if (typeof kind !== 'string' || kind === '' || typeof url !== 'string' || url === '') return undefined;
  const fragment: MediaFragment = { kind, url };
  for (const key of TEXT_FIELDS) {
    const v = data[key];
    if (typeof v === 'string') fragment[key] = v;
  }
  for (const key of NUMERIC_FIELDS) {
    const v = data[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) fragment[key] = v;
  }
  return fragment;
}

export function readUploadReply(status: number, body: string): ReplyOutcome {
  const json = parseJson(body);
  if (!isRecord(json) || typeof json.code !== 'number' || !Number.isInteger(json.code)) {
    if (status >= 200 && status < 300) {
      return { ok: false, error: new MediaError('BAD_RESPONSE', `the media service answered HTTP ${status} with no envelope`, { status }) };
    }
    return { ok: false, error: errorFromStatus(status, body) };
  }
  const msg = typeof json.msg === 'string' ? json.msg : '';
  if (json.code !== 0) return { ok: false, error: errorFromEnvelope(json.code, msg, status) };
  const fragment = readFragment(json.data);
  if (!fragment) {
    return {
      ok: false,
      error: new MediaError('BAD_RESPONSE', 'the hub reported success but its data is not a media fragment (kind and url missing)', {
        status,
        hubCode: 0,
      }),
    };
  }
  return { ok: true, fragment };
}
