/**
 * What the end of a connection means for the next one (guide §3.5, §3.6, §14.1), as a pure function:
 * - a `hello-fail` reason of exactly "authentication failed" is terminal for the token; any other reason, known
 *   or not, is transient (never matched by prefix or substring, in either direction);
 * - a close before `hello-ok` without a `hello-fail` is a duplicate-session collision or the handshake timeout;
 * - close code 4001 after a good session is a takeover, and any other close of a good session that this side did
 *   not ask for is presumed one too: both raise the backoff floor.
 * The close code of a handshake rejection (1006) is never read: the reason in the frame is what counts.
 */
import type { CloseCause } from '../backoff-policy';
import type { SessionEnd } from '../session-info';

export const AUTH_FAILED_REASON = 'authentication failed';

export type EndVerdict = { terminal: true; reason: string } | { terminal: false; cause: CloseCause; reason: string | undefined };

export function classifyEnd(end: SessionEnd, expectedClose: boolean): EndVerdict {
  if (end.helloFailReason !== undefined) {
    if (end.helloFailReason === AUTH_FAILED_REASON) return { terminal: true, reason: AUTH_FAILED_REASON };
    return { terminal: false, cause: 'hello-fail', reason: end.helloFailReason };
  }
  const reason = end.reason || end.error || end.clientReason;
  if (end.neverOpened) return { terminal: false, cause: 'unreachable', reason };
  if (!end.helloOk) return { terminal: false, cause: 'no-hello', reason };
  if (end.code === 4001) return { terminal: false, cause: 'takeover', reason };
  if (end.clientReason !== undefined || expectedClose) return { terminal: false, cause: 'client-closed', reason };
  return { terminal: false, cause: 'lost-session', reason };
}
