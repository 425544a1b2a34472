/**
 * `wss://`: the dev hub behind a certificate from a private CA (test/fixtures/tls), and the client trusting that CA
 * through `tls.ca` (beside the public roots), refusing an unverified one, and told not to verify.
 */
import assert from 'node:assert/strict';
import { HubClient, HubError } from '../../../lib/hub';
import { TLS_FILES, testCa } from '../../support/tls';
import { ALICE, BOB, CHAT, FAST, Harness, collect, next } from './support/harness';

describe('HubClient over wss:// (dev hub with TLS)', () => {
  const h = new Harness();
  beforeEach(() => h.start({ tls: TLS_FILES }));
  afterEach(() => h.cleanup());

  it('serves wss:// and https:// when given a certificate', () => {
    assert.match(h.hub.wsUrl, /^wss:\/\/127\.0\.0\.1:\d+\/ws$/);
    assert.match(h.hub.mediaUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('connects, sends and receives through a hub whose CA it was given', async () => {
    const bob = await h.connected(h.client(BOB, { tls: { ca: testCa() } }));
    const alice = await h.connected(h.client(ALICE, { tls: { ca: [Buffer.from(testCa())] } }));
    const got = next(bob, 'message');
    const ack = await alice.send({ chatId: CHAT, text: 'over TLS' });
    assert.equal((await got).text, 'over TLS');
    assert.equal((await got).messageId, ack.messageId);
  });

  it('refuses a certificate it cannot verify, and says why', async () => {
    const alice = h.client(ALICE);
    const states = collect(alice, 'state');
    alice.start();
    await next(alice, 'state', (s) => s.state === 'backoff');
    const backoff = states.find((s) => s.state === 'backoff')!;
    assert.equal(backoff.cause, 'unreachable');
    assert.match(String(backoff.reason), /certificate/i);
    assert.equal(states.some((s) => s.state === 'connected'), false);
  });

  it('connects without verification only when told so', async () => {
    await h.connected(h.client(ALICE, { tls: { rejectUnauthorized: false } }));
  });

  it('refuses a CA that is not PEM', () => {
    assert.throws(
      () => new HubClient({ url: h.hub.wsUrl, token: 't', userId: ALICE.id, ...FAST, tls: { ca: 'not a certificate' } }),
      (e: unknown) => e instanceof HubError && e.code === 'BAD_OPTIONS' && /PEM/.test(e.message),
    );
  });
});
