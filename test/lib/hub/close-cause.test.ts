import assert from 'node:assert/strict';
import { classifyEnd } from '../../../lib/hub/connection/close-cause';
import type { SessionEnd } from '../../../lib/hub/session-info';

const end = (e: Partial<SessionEnd>): SessionEnd => ({
  code: 1006,
  reason: '',
  helloOk: false,
  helloFailReason: undefined,
  clientReason: undefined,
  neverOpened: false,
  error: undefined,
  ...e,
});

describe('classifyEnd', () => {
  it('is terminal only for exactly "authentication failed", whatever the close code', () => {
    assert.deepEqual(classifyEnd(end({ helloFailReason: 'authentication failed' }), false), { terminal: true, reason: 'authentication failed' });
    for (const reason of ['Authentication failed', 'authentication failed.', 'authentication failed: expired', ' authentication failed', 'remote auth service unavailable', 'nonce mismatch', 'invalid connect event', 'invalid connect payload', '', 'token expired']) {
      const v = classifyEnd(end({ helloFailReason: reason, code: 1000 }), false);
      assert.deepEqual(v, { terminal: false, cause: 'hello-fail', reason }, reason);
    }
  });

  it('reads a close before hello-ok without hello-fail as a collision or handshake timeout', () => {
    assert.equal((classifyEnd(end({ code: 1006 }), false) as { cause: string }).cause, 'no-hello');
    assert.equal((classifyEnd(end({ clientReason: 'handshake-timeout' }), false) as { cause: string }).cause, 'no-hello');
    assert.equal((classifyEnd(end({ neverOpened: true, error: 'ECONNREFUSED' }), false) as { cause: string }).cause, 'unreachable');
  });

  it('raises the floor after 4001 and after an unexplained close of a good session, not after our own close', () => {
    assert.equal((classifyEnd(end({ helloOk: true, code: 4001 }), false) as { cause: string }).cause, 'takeover');
    for (const code of [1000, 1005, 1006, 1011]) assert.equal((classifyEnd(end({ helloOk: true, code }), false) as { cause: string }).cause, 'lost-session');
    assert.equal((classifyEnd(end({ helloOk: true, code: 1000, clientReason: 'dseq-gap' }), false) as { cause: string }).cause, 'client-closed');
    assert.equal((classifyEnd(end({ helloOk: true, code: 1005 }), true) as { cause: string }).cause, 'client-closed', 'an expected close (cursor reset)');
  });
});
