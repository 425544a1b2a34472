/**
 * The MIME type an upload declares. An explicit type is kept as given, with a warning when the content says
 * otherwise (§15.5: the hub trusts a singular declared type, so this is the only place a mismatch can be caught).
 * Without one, the name's extension is used when the content agrees, the content's type when it does not, and
 * `application/octet-stream` when neither is known, which lets the hub's sniffer decide.
 */
import { checkMime } from './multipart';
import { mimeForFileName } from './mime-types';
import { mimeMatches } from './sniff';

export interface MediaWarning {
  code: 'MIME_MISMATCH';
  message: string;
  /** The type that was (or would have been) declared. */
  declared: string;
  /** What the content looks like. */
  detected: string;
}

export interface MimeChoice {
  mime: string;
  warning?: MediaWarning;
}

export function chooseMime(declared: string | undefined, fileName: string | undefined, detected: string | undefined): MimeChoice {
  if (declared !== undefined && declared.trim() !== '') {
    const mime = checkMime(declared);
    if (detected === undefined || mimeMatches(mime, detected)) return { mime };
    return {
      mime,
      warning: {
        code: 'MIME_MISMATCH',
        declared: mime,
        detected,
        message: `declared MIME type ${mime} does not match the content, which looks like ${detected}; uploading as ${mime} as declared`,
      },
    };
  }
  const byName = fileName === undefined ? undefined : mimeForFileName(fileName);
  if (byName !== undefined && (detected === undefined || mimeMatches(byName, detected))) return { mime: byName };
  if (detected === undefined) return { mime: 'application/octet-stream' };
  if (byName === undefined) return { mime: detected };
  return {
    mime: detected,
    warning: {
      code: 'MIME_MISMATCH',
      declared: byName,
      detected,
      message: `the name '${fileName}' suggests ${byName} but the content looks like ${detected}; uploading as ${detected} (pass a MIME type to override)`,
    },
  };
}
