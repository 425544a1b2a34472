/**
 * `hub-out`: what a flow says to the Message Hub through the selected hub-config's client: messages, replies,
 * reactions, typing, read cursors, presence subscriptions and streams (`msg.action`, documented in the help).
 * Output 1 passes the message on once the client has it (a message: durably in its outbox); output 2 reports the
 * hub's `message.ack` or `message.error` for each durable send, with `msg._msgid` kept — also for a send accepted
 * before a restart, whose outbox row carries this node's id and the `_msgid` (the send's tag). Invalid input fails
 * through `done(err)` with a code. A send accepted while the hub is unreachable goes out on reconnect.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import type { HubClient, SendAck, SendHandle, SendRejection } from '../lib/hub';
import { fail } from './shared/fail';
import { nodeLog } from './shared/log';
import { HubNodeError } from './hub/errors';
import { HubNodeStatus } from './hub/node-status';
import { parseOutRequest, type OutRequest } from './hub/outbound';
import { ackReport, failureReport, rejectionReport } from './hub/reports';
import { OpenStreams } from './hub/streams';
import { readOutTag, sendTag, type OutTag } from './hub/send-tags';
import { isHubConfig } from './hub/types';

interface HubOutDef extends NodeDef {
  hub: string;
  action?: string;
  chat?: string;
}

type Msg = NodeMessageInFlow & Record<string, unknown>;
type Send = (msg: NodeMessage | Array<NodeMessage | null>) => void;
type Done = (err?: Error) => void;

/** Streams one node may hold open at once, and how long one may go without a frame before it is failed. */
const STREAM_LIMIT = 64;
const STREAM_IDLE_MS = 5 * 60_000;

/** The stream frame a refusal names, as the hub-out action that sent it. */
const LIFECYCLE_ACTIONS: Record<string, string> = {
  'message.created': 'stream-open',
  'message.add': 'stream-append',
  'message.done': 'stream-done',
  'message.failed': 'stream-fail',
};

export = function (RED: NodeAPI) {
  function HubOut(this: Node, def: HubOutDef): void {
    RED.nodes.createNode(this, def);
    const nodeId = this.id;
    const status = new HubNodeStatus(this, RED._('hub-out.status.sent'), RED._('hub-out.status.failed'));
    const log = nodeLog(this);
    const hub = RED.nodes.getNode(def.hub);
    const defaults = { action: def.action ?? 'send', chatId: (def.chat ?? '').trim() };
    /** Trace ids of the sends this instance still waits on: their answers are reported through their promises. */
    const waiting = new Set<string>();
    let closed = false;

    const report = (base: Msg, payload: unknown, ok: boolean, code?: string): void => {
      if (closed) return;
      if (ok) status.passed();
      else status.failed(code ?? 'error');
      this.send([null, { ...base, payload }]);
    };

    const streams = new OpenStreams<Msg>(STREAM_LIMIT, STREAM_IDLE_MS, (entry, err) => {
      log.warn(
        err === undefined
          ? `stream ${entry.writer.messageId} had no frame for ${STREAM_IDLE_MS / 1000} s and was ended with message.failed`
          : `stream ${entry.writer.messageId} is idle but could not be ended yet: ${(err as Error).message}`,
      );
    });

    /**
     * The answer to a send this node made whose promise is gone (made before a restart or a redeploy of this
     * node): the tag in its outbox row names the node, the input's `_msgid` and the action. Output 2 then gets a
     * message with that `_msgid` and `restored: true` (the rest of the input was not kept).
     */
    const restored = (answer: SendAck | SendRejection): OutTag | undefined => {
      const tag = readOutTag(answer.tag);
      return tag && tag.node === nodeId && !waiting.has(answer.traceId) ? tag : undefined;
    };
    const restoredBase = (tag: OutTag): Msg => ({ _msgid: tag.msgid, restored: true }) as unknown as Msg;

    const onAck = (ack: SendAck): void => {
      const tag = restored(ack);
      if (tag) report(restoredBase(tag), ackReport(tag.action, ack), true);
    };

    const onRejected = (r: SendRejection): void => {
      const tag = restored(r);
      if (tag) {
        report(restoredBase(tag), rejectionReport(tag.action, r), false, r.code);
        return;
      }
      const action = LIFECYCLE_ACTIONS[r.event];
      const entry = action === undefined ? undefined : streams.get(r.messageId);
      if (entry) report(entry.context, rejectionReport(action, r), false, r.code);
    };

    if (!isHubConfig(hub)) {
      status.set('red', 'ring', RED._('hub-out.errors.no-hub'));
    } else {
      hub.register(this, { onStatus: (view) => status.connection(view), listeners: { ack: onAck, rejected: onRejected } });
    }

    function clientOrThrow(): HubClient {
      if (!isHubConfig(hub)) throw new HubNodeError('NO_HUB_CONFIG', RED._('hub-out.errors.no-hub'));
      const client = hub.hubClient();
      if (client) return client;
      const why = hub.unavailableReason();
      throw new HubNodeError('HUB_UNAVAILABLE', why ? `the hub connection is unavailable: ${why.code}: ${why.message}` : 'the hub connection is not ready', why ? { cause: why.code } : undefined);
    }

    /**
     * A durable send: output 1 and done() once the client has it in its outbox (`handle.queued`); output 2 when the
     * hub answers. A refusal before that is the flow's error, through done(err).
     */
    function durable(msg: Msg, action: string, chatId: string, handle: SendHandle, send: Send, done: Done, ownId: boolean): void {
      // Output 2 carries the message as it came in, whatever happens downstream of output 1 meanwhile.
      const base = RED.util.cloneMessage(msg) as Msg;
      const traceId = handle.traceId;
      if (traceId !== undefined) waiting.add(traceId);
      let accepted = false;
      void handle.queued.then((queued) => {
        if (!queued) return; // refused before it was durable: the handle rejects with the reason
        accepted = true;
        if (ownId) msg.message_id = queued.messageId;
        msg.chat_id = queued.chatId;
        if (!closed) send([msg, null]);
        done();
      });
      handle.then(
        (ack) => {
          if (traceId !== undefined) waiting.delete(traceId);
          report(base, ackReport(action, ack), true);
        },
        (err: unknown) => {
          if (traceId !== undefined) waiting.delete(traceId);
          if (!accepted) {
            fail(err, status, done);
            return;
          }
          const r = failureReport(action, err);
          if (r) report(base, { ...r, chat_id: r.chat_id ?? chatId, message_id: r.message_id ?? handle.messageId }, false, r.code);
        },
      );
    }

    function run(client: HubClient, req: OutRequest, msg: Msg, send: Send, done: Done): void {
      const pass = (): void => {
        send([msg, null]);
        done();
      };
      switch (req.action) {
        case 'send':
        case 'reply':
          durable(msg, req.action, req.input.chatId, client.send({ ...req.input, tag: sendTag(nodeId, msg._msgid, req.action) }), send, done, true);
          return;
        case 'react':
          // Queued under its last-write-wins slot id, `rxn:<target>:<reactor>`, which is not a message id for the flow.
          durable(msg, req.action, req.input.chatId, client.react({ ...req.input, tag: sendTag(nodeId, msg._msgid, req.action) }), send, done, false);
          return;
        case 'typing':
          client.setTyping(req.chatId, req.isTyping);
          msg.chat_id = req.chatId;
          return pass();
        case 'read':
          msg.advanced = client.markRead(req.chatId, req.at);
          msg.chat_id = req.chatId;
          return pass();
        case 'subscribe':
          // Held in this node's name: another node's subscription to the same user is its own.
          for (const userId of req.userIds) client.subscribePresence(userId, nodeId);
          return pass();
        case 'unsubscribe':
          for (const userId of req.userIds) client.unsubscribePresence(userId, nodeId);
          return pass();
        case 'stream-open': {
          streams.checkRoom();
          const writer = client.openStream({ chatId: req.chatId, mode: req.mode, messageId: req.messageId, to: req.to });
          streams.add(writer, RED.util.cloneMessage(msg) as Msg);
          msg.stream_id = writer.messageId;
          msg.message_id = writer.messageId;
          msg.chat_id = writer.chatId;
          return pass();
        }
        case 'stream-append': {
          const entry = streams.find(req.stream);
          entry.writer.append(req.delta);
          streams.touch(entry);
          msg.stream_id = entry.writer.messageId;
          return pass();
        }
        case 'stream-fail': {
          const entry = streams.find(req.stream);
          entry.writer.fail();
          streams.touch(entry);
          msg.stream_id = entry.writer.messageId;
          return pass();
        }
        case 'stream-done': {
          const entry = streams.find(req.stream);
          entry.writer.done();
          streams.touch(entry);
          msg.stream_id = entry.writer.messageId;
          if (!req.finalize) return pass();
          durable(msg, 'stream-done', entry.writer.chatId, entry.writer.finalize({ ...req.finalize, tag: sendTag(nodeId, msg._msgid, req.action) }), send, done, true);
          return;
        }
      }
    }

    this.on('input', (input, send, done) => {
      const msg = input as Msg;
      try {
        const req = parseOutRequest(msg, defaults);
        run(clientOrThrow(), req, msg, send as Send, done);
      } catch (err) {
        fail(err, status, done);
      }
    });

    this.on('close', (_removed: boolean, done: () => void) => {
      closed = true;
      streams.failAll();
      if (!isHubConfig(hub)) return done();
      hub.hubClient()?.unsubscribePresenceAll(nodeId);
      hub.deregister(this, done);
    });
  }

  RED.nodes.registerType('hub-out', HubOut);
};
