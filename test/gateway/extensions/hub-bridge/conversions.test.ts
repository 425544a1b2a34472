import assert from 'node:assert/strict';
import type { InboundMessage } from '../../../../lib/hub/events';
import { createMessage, type MessageFields } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';
import { clampText, jobsFor, textMessageFor } from '../../../../gateway/extensions/hub-bridge/hub-to-mesh';
import { fileCaption, planMeshToHub, senderLabel, shortId } from '../../../../gateway/extensions/hub-bridge/mesh-to-hub';
import { hubMessageIdFor, meshIdForHubMessage } from '../../../../gateway/extensions/hub-bridge/message-ids';
import { hubTargetsFor, meshRouteFor } from '../../../../gateway/extensions/hub-bridge/routes';
import type { HubToMeshRule, MeshToHubRule } from '../../../../gateway/extensions/hub-bridge/bridge-config';

const GW = 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf';
const NODE = 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn';
const names = new Map([[NODE, 'Kitchen']]);

function mesh(fields: Partial<MessageFields> = {}) {
  return createMessage({
    id: MessageId.random(),
    sender: NODE,
    recipient: GW,
    app_id: 'sensors',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: 1_700_000_000_000n,
    content: '21.5 °C',
    ...fields,
  });
}

function inbound(fields: Partial<InboundMessage> = {}): InboundMessage {
  return {
    event: 'message.send',
    messageId: 'msg-01J0000000000000000000000A',
    chatId: 'cnv_1',
    chatType: 'group',
    sender: { id: 'usr_ann', type: 'direct', nickName: 'Ann' },
    to: undefined,
    originDeviceId: 'dev-1',
    fromSelf: false,
    mode: 'normal',
    isNormalMode: true,
    fragments: [{ kind: 'text', text: 'hello', supported: true }],
    text: 'hello',
    mentions: [],
    mentionsMe: false,
    reply: null,
    replyToMessageId: undefined,
    streamMerged: false,
    replay: false,
    update: false,
    emittedAt: 1_700_000_000_123,
    traceId: 'trc-1',
    seq: undefined,
    dseq: 1,
    ...fields,
  } as InboundMessage;
}

const rule = (r: Partial<MeshToHubRule>): MeshToHubRule => ({ chatId: 'cnv_1', appIds: new Set(), recipient: 'gateway', sender: undefined, label: 'name', unverified: 'mark', ...r });

describe('gateway/hub conversions and rules', () => {
  describe('meshRouteFor', () => {
    it('takes the first rule whose app id, sender and recipient match', () => {
      const rules = [rule({ chatId: 'a', appIds: new Set(['other']) }), rule({ chatId: 'b', sender: 'off1nobody' }), rule({ chatId: 'c' }), rule({ chatId: 'd' })];
      assert.equal(meshRouteFor(rules, mesh(), { toGateway: true })?.chatId, 'c');
    });

    it("keeps 'gateway' rules to messages addressed to this gateway; '*' and a named recipient see others", () => {
      const passing = mesh({ recipient: 'off1someone' });
      assert.equal(meshRouteFor([rule({})], passing, { toGateway: false }), undefined);
      assert.equal(meshRouteFor([rule({ recipient: '*' })], passing, { toGateway: false })?.chatId, 'cnv_1');
      assert.equal(meshRouteFor([rule({ recipient: 'off1someone' })], passing, { toGateway: false })?.chatId, 'cnv_1');
      assert.equal(meshRouteFor([rule({ recipient: 'off1else' })], passing, { toGateway: false }), undefined);
    });
  });

  describe('hubTargetsFor', () => {
    const rules: HubToMeshRule[] = [
      { chatId: 'cnv_1', recipient: 'off1fixed', appId: 'app', repliesToSender: true },
      { chatId: 'cnv_1', recipient: 'off1fixed', appId: 'app', repliesToSender: false },
      { chatId: 'cnv_1', recipient: undefined, appId: 'app', repliesToSender: true },
      { chatId: 'cnv_2', recipient: 'off1two', appId: 'app', repliesToSender: true },
    ];
    it('sends once per distinct recipient of the matching rules', () => {
      assert.deepEqual(hubTargetsFor(rules, 'cnv_1', undefined), [{ recipient: 'off1fixed', appId: 'app', viaReply: false }]);
    });
    it('sends a reply to a bridged message back to its mesh sender, in its app', () => {
      assert.deepEqual(hubTargetsFor(rules, 'cnv_1', { sender: NODE, appId: 'sensors' }), [
        { recipient: NODE, appId: 'sensors', viaReply: true },
        { recipient: 'off1fixed', appId: 'app', viaReply: false },
      ]);
    });
    it('takes no part in a reply to a message another gateway of the site bridged: no fallback to the rule recipient', () => {
      assert.deepEqual(hubTargetsFor(rules, 'cnv_1', 'elsewhere'), [{ recipient: 'off1fixed', appId: 'app', viaReply: false }]);
      assert.deepEqual(hubTargetsFor(rules.slice(0, 1), 'cnv_1', 'elsewhere'), []);
      assert.deepEqual(hubTargetsFor(rules.slice(0, 1), 'cnv_1', undefined), [{ recipient: 'off1fixed', appId: 'app', viaReply: false }]);
    });
  });

  describe('planMeshToHub', () => {
    it('labels the text with the sender name and keeps the id rule', () => {
      const m = mesh();
      const plan = planMeshToHub(m, true, { label: 'name', unverified: 'mark', names });
      assert.deepEqual(plan, { messageId: hubMessageIdFor(m.id), fragments: [{ kind: 'text', text: 'Kitchen: 21.5 °C' }] });
      assert.deepEqual(planMeshToHub(m, true, { label: 'none', unverified: 'mark', names }), { messageId: hubMessageIdFor(m.id), fragments: [{ kind: 'text', text: '21.5 °C' }] });
    });

    it('gives a reply the bridged id of the message it answers, with a preview', () => {
      const original = MessageId.random();
      const plan = planMeshToHub(mesh({ reply_to_msg: original, reply_context: { sender: NODE, text: 'how warm?' } }), true, { label: 'none', unverified: 'mark', names });
      assert.ok(!('skip' in plan));
      assert.deepEqual(plan.replyTo, { messageId: hubMessageIdFor(original), preview: { nickName: 'Kitchen', fragments: [{ kind: 'text', text: 'how warm?' }] } });
    });

    it('never bridges protocol traffic, sealed payloads, re-originated messages or empty ones', () => {
      assert.deepEqual(planMeshToHub(mesh({ content: '__MLS_ENC__AAAA' }), true, { label: 'name', unverified: 'mark', names }), { skip: 'sealed' });
      assert.deepEqual(planMeshToHub(mesh({ content: '__PRESENCE__{}' }), true, { label: 'name', unverified: 'mark', names }), { skip: 'control' });
      assert.deepEqual(planMeshToHub(mesh({ metadata: { hub_message_id: 'msg-X' } }), true, { label: 'name', unverified: 'mark', names }), { skip: 'from_hub' });
      assert.deepEqual(planMeshToHub(mesh({ content: '' }), true, { label: 'none', unverified: 'mark', names }), { skip: 'empty' });
    });

    it('links media that lives at a URL, uploads inline media, and refuses end-to-end encrypted media', () => {
      const media = { mime_type: 'image/jpeg', file_name: 'door.jpg', file_size: 1234n, width: 640, height: 480 };
      const linked = planMeshToHub(mesh({ content_type: 'image', content: 'front door', media_metadata: { ...media, download_url: 'https://cdn.example/door.jpg' } }), true, { label: 'none', unverified: 'mark', names });
      assert.ok(!('skip' in linked));
      assert.deepEqual(linked.fragments, [
        { kind: 'text', text: 'front door' },
        { kind: 'image', url: 'https://cdn.example/door.jpg', name: 'door.jpg', mime: 'image/jpeg', size: 1234, width: 640, height: 480 },
      ]);
      const inline = planMeshToHub(mesh({ content_type: 'voice_note', content: '', binary_content: new Uint8Array([1, 2, 3]), media_metadata: { mime_type: 'audio/ogg', file_name: 'note.ogg', file_size: 3n } }), true, { label: 'name', unverified: 'mark', names });
      assert.ok(!('skip' in inline));
      assert.deepEqual(inline.fragments, [{ kind: 'text', text: 'Kitchen:' }]);
      assert.deepEqual({ ...inline.upload, data: [...inline.upload!.data] }, { data: [1, 2, 3], name: 'note.ogg', mime: 'audio/ogg', kind: 'audio' });
      assert.deepEqual(planMeshToHub(mesh({ content_type: 'image', media_metadata: { ...media, encryption_key: 'k' } }), true, { label: 'none', unverified: 'mark', names }), { skip: 'encrypted_media' });
    });

    it('shortens unnamed senders and captions files with the label', () => {
      assert.equal(shortId(GW), 'off1qyqqqqqq…antf');
      assert.equal(senderLabel(GW, names), 'off1qyqqqqqq…antf');
      assert.deepEqual(fileCaption(NODE, { label: 'name', unverified: 'mark', names }), [{ kind: 'text', text: 'Kitchen (unverified):' }]);
      assert.deepEqual(fileCaption(NODE, { label: 'name', unverified: 'bridge', names }), [{ kind: 'text', text: 'Kitchen:' }]);
      assert.deepEqual(fileCaption(NODE, { label: 'none', unverified: 'mark', names }), []);
    });

    it('says when the sender is not proven, bridges it as it is, or leaves it out, as the rule says', () => {
      const m = mesh();
      const text = (unverified: 'mark' | 'bridge' | 'skip', label: 'name' | 'none' = 'name') => {
        const plan = planMeshToHub(m, false, { label, unverified, names });
        return 'skip' in plan ? plan.skip : plan.fragments;
      };
      assert.deepEqual(text('mark'), [{ kind: 'text', text: 'Kitchen (unverified): 21.5 °C' }]);
      assert.deepEqual(text('mark', 'none'), [{ kind: 'text', text: '21.5 °C' }]);
      assert.deepEqual(text('bridge'), [{ kind: 'text', text: 'Kitchen: 21.5 °C' }]);
      assert.equal(text('skip'), 'unverified_sender');
      assert.deepEqual(planMeshToHub(m, true, { label: 'name', unverified: 'skip', names }), { messageId: hubMessageIdFor(m.id), fragments: [{ kind: 'text', text: 'Kitchen: 21.5 °C' }] });
    });
  });

  describe('jobsFor / textMessageFor', () => {
    it('makes one job per recipient, with the media fragments to fetch', () => {
      const m = inbound({ fragments: [{ kind: 'text', text: 'look', supported: true }, { kind: 'image', url: 'https://m/1', name: 'a.png', mime: 'image/png', size: 10, supported: true }], text: 'look' });
      const jobs = jobsFor(m, [{ recipient: 'off1a', appId: 'x', viaReply: false }, { recipient: 'off1b', appId: 'y', viaReply: true }], 5, 100);
      assert.equal(jobs.length, 2);
      assert.deepEqual(jobs[0], {
        v: 1,
        hubMessageId: m.messageId,
        chatId: 'cnv_1',
        senderId: 'usr_ann',
        senderName: 'Ann',
        text: 'look',
        media: [{ kind: 'image', url: 'https://m/1', name: 'a.png', mime: 'image/png', size: 10 }],
        recipient: 'off1a',
        appId: 'x',
        emittedAt: 1_700_000_000_123,
      });
    });

    it('re-originates the text from the gateway with the same id every time, its origin in the metadata', () => {
      const [job] = jobsFor(inbound({ replyToMessageId: hubMessageIdFor(MessageId.parse('67e55044-10b1-426f-9247-bb680e5fe0c8')) }), [{ recipient: NODE, appId: 'sensors', viaReply: true }], 0, 100);
      const a = textMessageFor(job!, GW);
      const b = textMessageFor(job!, GW);
      assert.ok(a.id.toString() === b.id.toString() && a.id.toString() === meshIdForHubMessage(job!.hubMessageId, NODE).toString());
      assert.equal(a.sender, GW);
      assert.equal(a.recipient, NODE);
      assert.equal(a.app_id, 'sensors');
      assert.equal(a.requires_ack, true);
      assert.equal(a.timestamp, 1_700_000_000_123n);
      assert.equal(a.reply_to_msg?.toString(), '67e55044-10b1-426f-9247-bb680e5fe0c8', 'a reply to a bridged message refers to its mesh id');
      assert.deepEqual(Object.fromEntries(a.metadata), { hub_message_id: job!.hubMessageId, hub_chat_id: 'cnv_1', hub_sender: 'usr_ann', hub_sender_name: 'Ann' });
    });

    it('cuts long texts at a code point boundary within the byte limit', () => {
      assert.equal(clampText('short', 16), 'short');
      const cut = clampText('€'.repeat(10), 16);
      assert.equal(cut, '€€€€…');
      assert.ok(Buffer.byteLength(cut) <= 16);
      assert.equal(clampText('😀'.repeat(5), 10), '😀…');
    });
  });
});
