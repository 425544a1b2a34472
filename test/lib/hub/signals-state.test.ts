import assert from 'node:assert/strict';
import { HubError, ManualClock, type PermissionEvent, type TypingEvent } from '../../../lib/hub';
import { ChatGate } from '../../../lib/hub/send/chat-gate';
import { PermissionCards } from '../../../lib/hub/receive/permission-cards';
import { PresenceSubscriptions } from '../../../lib/hub/presence';
import { TypingProducer, TypingReceiver } from '../../../lib/hub/typing';

describe('ChatGate', () => {
  it('closes a chat for the window, opens early on demand, and exempts chosen chats', () => {
    const clock = new ManualClock(0);
    const gate = new ChatGate(clock, 600_000, ['owner-chat']);
    assert.equal(gate.close('c1'), 600_000);
    assert.equal(gate.close('owner-chat'), undefined);
    assert.equal(gate.closedUntil('owner-chat'), undefined);
    clock.advance(599_999);
    assert.equal(gate.closedUntil('c1'), 600_000);
    clock.advance(1);
    assert.equal(gate.closedUntil('c1'), undefined, 'bounded window');
    gate.close('c2');
    assert.equal(gate.open('c2'), true);
    assert.equal(gate.open('c2'), false);
    gate.close('a');
    gate.close('b');
    assert.deepEqual(Object.keys(gate.snapshot()), ['a', 'b']);
    assert.equal(gate.openAll(), 2);
  });
});

describe('typing', () => {
  it('the receiver expires a peer 6 s after the last true, and a refresh restarts the window', () => {
    const clock = new ManualClock(0);
    const events: TypingEvent[] = [];
    const rx = new TypingReceiver(clock, 6000, (e) => events.push(e));
    assert.deepEqual(rx.update('c', 'usr_b', true), { chatId: 'c', userId: 'usr_b', isTyping: true, expired: false });
    clock.advance(5000);
    rx.update('c', 'usr_b', true);
    clock.advance(5999);
    assert.equal(events.length, 0);
    clock.advance(1);
    assert.deepEqual(events, [{ chatId: 'c', userId: 'usr_b', isTyping: false, expired: true }]);
    rx.update('c', 'usr_b', true);
    rx.update('c', 'usr_b', false);
    clock.advance(10_000);
    assert.equal(events.length, 1, 'an explicit false cancels the expiry');
    assert.equal(clock.pending(), 0);
  });

  it('the producer refreshes every 3 s, ends with false, and gives up after the longest turn', () => {
    const clock = new ManualClock(0);
    const sent: Array<[string, boolean, number]> = [];
    const tx = new TypingProducer(clock, 3000, 10_000, (chat, on) => sent.push([chat, on, clock.now()]));
    tx.set('c', true);
    clock.advance(9000);
    assert.deepEqual(sent, [
      ['c', true, 0],
      ['c', true, 3000],
      ['c', true, 6000],
      ['c', true, 9000],
    ]);
    clock.advance(3000);
    assert.deepEqual(sent.at(-1), ['c', false, 12_000]);
    assert.equal(tx.isActive('c'), false);
    tx.set('d', true);
    tx.set('e', true);
    tx.stopAll();
    assert.deepEqual(sent.slice(-2).map((s) => [s[0], s[1]]), [
      ['d', false],
      ['e', false],
    ]);
    assert.equal(clock.pending(), 0);
  });
});

describe('PresenceSubscriptions', () => {
  it('keeps at most 16 and only usr_/agt_ ids', () => {
    const subs = new PresenceSubscriptions();
    for (let i = 0; i < 16; i++) subs.add(`usr_${i}`);
    assert.equal(subs.add('usr_0'), false, 're-subscribing is idempotent');
    assert.throws(() => subs.add('agt_17'), (e: unknown) => e instanceof HubError && e.code === 'PRESENCE_LIMIT');
    assert.throws(() => new PresenceSubscriptions().add('bob'), (e: unknown) => e instanceof HubError && e.code === 'BAD_USER_ID');
    subs.remove('usr_0');
    subs.add('agt_17');
    assert.equal(subs.list().length, 16);
  });
});

describe('PermissionCards', () => {
  it('expires a card locally at expires_at and collapses on a non-empty request id only', () => {
    const clock = new ManualClock(1000);
    const events: PermissionEvent[] = [];
    const cards = new PermissionCards(clock, (e) => events.push(e));
    const card = (requestId: string, expiresAt?: number) => ({
      requestId,
      chatId: 'c',
      agentId: 'agt_a',
      operation: 'read_emails',
      target: { label: 'Gmail' },
      expiresAt,
      receivedAt: clock.now(),
    });
    cards.request(card('r1', 5000));
    cards.request(card('r2'));
    assert.equal(cards.resolve(''), undefined);
    assert.equal(cards.list().length, 2);
    clock.advance(4000);
    assert.deepEqual(events.map((e) => e.kind), ['expired']);
    assert.deepEqual(cards.list().map((c) => c.requestId), ['r2']);
    assert.equal(cards.resolve('r2')?.operation, 'read_emails');
    assert.equal(cards.resolve('r1'), undefined);
    cards.request(card('r3', 999));
    clock.advance(0);
    assert.equal(events.at(-1)?.kind, 'expired', 'an already expired card expires at once');
  });
});
