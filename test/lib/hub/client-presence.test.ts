/**
 * Presence subscriptions counted per subscriber (several nodes on one connection): the hub holds one subscription
 * per user while anyone holds it, one subscriber letting go never drops another's, and what is held is subscribed
 * again after a reconnect. Against the dev hub over real sockets.
 */
import assert from 'node:assert/strict';
import { HubError, PRESENCE_LIMIT } from '../../../lib/hub';
import { ALICE, BOB, CAROL, eventually, Harness, next } from './support/harness';

describe('HubClient: presence subscriptions per subscriber', () => {
  const h = new Harness();
  beforeEach(() => h.start());
  afterEach(() => h.cleanup());

  const atHub = (): string[] => [...(h.hub.admin.devices().find((d) => d.user_id === ALICE.id)?.presence_subscriptions ?? [])].sort();
  const uplinks = (event: string): number => h.hub.admin.received({ user_id: ALICE.id, event }).length;

  it('keeps a user subscribed while any subscriber holds it, and tells the hub when the last lets go', async () => {
    const alice = await h.connected(h.client(ALICE));
    alice.subscribePresence(BOB.id, 'node-1');
    alice.subscribePresence(BOB.id, 'node-2');
    await eventually(() => uplinks('presence.subscribe') === 2, 5000, 'both subscribes at the hub');
    assert.deepEqual(atHub(), [BOB.id]);

    assert.equal(alice.unsubscribePresence(BOB.id, 'node-1'), false, 'node-2 still holds it');
    assert.deepEqual(alice.presenceSubscriptions('node-1'), []);
    assert.deepEqual(alice.presenceSubscriptions('node-2'), [BOB.id]);
    // A later uplink reaching the hub proves no unsubscribe went before it.
    alice.subscribePresence(CAROL.id, 'node-1');
    await eventually(() => uplinks('presence.subscribe') === 3, 5000, 'the carol subscribe at the hub');
    assert.deepEqual(atHub(), [BOB.id, CAROL.id]);
    assert.equal(uplinks('presence.unsubscribe'), 0);

    assert.deepEqual(alice.unsubscribePresenceAll('node-2'), [BOB.id]);
    await eventually(() => uplinks('presence.unsubscribe') === 1, 5000, 'the unsubscribe at the hub');
    assert.deepEqual(atHub(), [CAROL.id]);
    assert.deepEqual(alice.presenceSubscriptions(), [CAROL.id]);
  });

  it('subscribes again after a reconnect to every user still held, and to none that was released', async () => {
    const alice = await h.connected(h.client(ALICE));
    alice.subscribePresence(BOB.id, 'node-1');
    alice.subscribePresence(BOB.id, 'node-2');
    alice.subscribePresence(CAROL.id, 'node-2');
    alice.unsubscribePresence(BOB.id, 'node-1');
    alice.unsubscribePresence(CAROL.id, 'node-2');
    await eventually(() => atHub().join() === BOB.id, 5000, 'bob alone at the hub');

    const back = next(alice, 'replay-done');
    h.hub.admin.dropConnection({ user_id: ALICE.id });
    await back;
    await eventually(() => atHub().join() === BOB.id, 5000, 'bob subscribed on the new connection');
    const snapshot = next(alice, 'presence', (p) => p.userId === BOB.id && p.snapshot);
    alice.subscribePresence(BOB.id, 'node-3');
    assert.equal((await snapshot).snapshot, true, 'a new subscriber gets a fresh snapshot');
    assert.deepEqual(alice.presenceSubscriptions(), [BOB.id]);
  });

  it('treats calls without a subscriber as one more subscriber, as before', async () => {
    const alice = await h.connected(h.client(ALICE));
    alice.subscribePresence(BOB.id);
    alice.subscribePresence(BOB.id, 'node-1');
    assert.equal(alice.unsubscribePresence(BOB.id), false);
    assert.equal(alice.unsubscribePresence(BOB.id), false, 'released already');
    assert.deepEqual(alice.presenceSubscriptions(), [BOB.id]);
    assert.equal(alice.unsubscribePresence(BOB.id, 'node-1'), true);
    assert.deepEqual(alice.presenceSubscriptions(), []);
  });

  it('counts the 16-subscription cap in users, not in subscribers', () => {
    const alice = h.client(ALICE);
    for (let i = 0; i < PRESENCE_LIMIT; i++) {
      alice.subscribePresence(`usr_${i}`, 'node-1');
      alice.subscribePresence(`usr_${i}`, 'node-2');
    }
    assert.throws(() => alice.subscribePresence('usr_one_more', 'node-3'), (e: unknown) => e instanceof HubError && e.code === 'PRESENCE_LIMIT');
    alice.unsubscribePresenceAll('node-1');
    assert.equal(alice.presenceSubscriptions().length, PRESENCE_LIMIT, 'node-2 holds them all still');
    alice.unsubscribePresence('usr_0', 'node-2');
    alice.subscribePresence('usr_one_more', 'node-3');
  });
});
