/**
 * `hub-out`: what a flow says to the Message Hub through the selected hub-config's client: messages, replies,
 * reactions, typing, read cursors, presence subscriptions and streams (`msg.action`, documented in the help).
 * Output 1 passes the message on once the client has it (a message: durably in its outbox); output 2 reports the
 * hub's `message.ack` or `message.error` for each durable send, with `msg._msgid` kept. Invalid input fails
 * through `done(err)` with a code. A send accepted while the hub is unreachable goes out on reconnect.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { createIdMinter, type HubClient, type SendAck, type SendRejection } from '../lib/hub';
import { fail } from './shared/fail';
import { QueuedWaiters } from './hub/acceptance';
import { HubNodeError } from './hub/errors';
import { HubNodeStatus } from './hub/node-status';
import { parseOutRequest, type OutRequest } from './hub/outbound';
import { ackReport, failureReport, rejectionReport } from './hub/reports';
import { OpenStreams } from './hub/streams';
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
    const status = new HubNodeStatus(this, RED._('hub-out.status.sent'));
    const hub = RED.nodes.getNode(def.hub);
    const defaults = { action: def.action ?? 'send', chatId: (def.chat ?? '').trim() };
    const ids = createIdMinter(() => Date.now());
    const subscribed = new Set<string>();
    const waiters = new QueuedWaiters();
    let closed = false;

    const report = (base: Msg, payload: unknown, ok: boolean, code?: string): void => {
      if (closed) return;
      if (ok) status.passed();
      else status.failed(code ?? 'error');
      this.send([null, { ...base, payload }]);
    };

    const streams = new OpenStreams<Msg>(STREAM_LIMIT, STREAM_IDLE_MS, (entry, err) => {
      this.warn(
        err === undefined
          ? `stream ${entry.writer.messageId} had no frame for ${STREAM_IDLE_MS / 1000} s and was ended with message.failed`
          : `stream ${entry.writer.messageId} is idle but could not be ended yet: ${(err as Error).message}`,
      );
    });

    const onRejected = (r: SendRejection): void => {
      const action = LIFECYCLE_ACTIONS[r.event];
      const entry = action === undefined ? undefined : streams.get(r.messageId);
      if (entry) report(entry.context, rejectionReport(action, r), false, r.code);
    };

    if (!isHubConfig(hub)) {
      status.set('red', 'ring', RED._('hub-out.errors.no-hub'));
    } else {
      hub.register(this, { onStatus: (view) => status.connection(view), listeners: { rejected: onRejected, queued: (q) => waiters.queued(q.messageId) } });
    }

    function clientOrThrow(): HubClient {
      if (!isHubConfig(hub)) throw new HubNodeError('NO_HUB_CONFIG', RED._('hub-out.errors.no-hub'));
      const client = hub.hubClient();
      if (client) return client;
      const why = hub.unavailableReason();
      throw new HubNodeError('HUB_UNAVAILABLE', why ? `the hub connection is unavailable: ${why.code}: ${why.message}` : 'the hub connection is not ready', why ? { cause: why.code } : undefined);
    }

    /**
     * A durable send: output 1 and done() once the client has it in its outbox (`queued`); output 2 when the hub
     * answers. A refusal before that is the flow's error, through done(err).
     */
    function durable(msg: Msg, action: string, chatId: string, messageId: string, answer: Promise<SendAck>, send: Send, done: Done, ownId: boolean): void {
      // Output 2 carries the message as it came in, whatever happens downstream of output 1 meanwhile.
      const base = RED.util.cloneMessage(msg) as Msg;
      let accepted = false;
      const accept = (): void => {
        if (accepted) return;
        accepted = true;
        cancel();
        if (ownId) msg.message_id = messageId;
        msg.chat_id = chatId;
        if (!closed) send([msg, null]);
        done();
      };
      const cancel = waiters.wait(messageId, accept);
      answer.then(
        (ack) => {
          accept();
          report(base, ackReport(action, ack), true);
        },
        (err: unknown) => {
          if (!accepted) {
            cancel();
            fail(err, status, done);
            return;
          }
          const r = failureReport(action, err);
          if (r) report(base, { ...r, chat_id: r.chat_id ?? chatId, message_id: r.message_id ?? messageId }, false, r.code);
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
        case 'reply': {
          const messageId = req.input.messageId ?? ids.messageId();
          durable(msg, req.action, req.input.chatId, messageId, client.send({ ...req.input, messageId }), send, done, true);
          return;
        }
        case 'react':
          // A reaction is queued under its last-write-wins slot id, `rxn:<target>:<reactor>` (ReactionEvent.slotId).
          durable(msg, req.action, req.input.chatId, `rxn:${req.input.targetMessageId}:${client.userId}`, client.react(req.input), send, done, false);
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
          for (const userId of req.userIds) {
            client.subscribePresence(userId);
            subscribed.add(userId);
          }
          return pass();
        case 'unsubscribe':
          for (const userId of req.userIds) {
            client.unsubscribePresence(userId);
            subscribed.delete(userId);
          }
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
          durable(msg, 'stream-done', entry.writer.chatId, entry.writer.messageId, entry.writer.finalize(req.finalize), send, done, true);
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
      const client = isHubConfig(hub) ? hub.hubClient() : undefined;
      for (const userId of subscribed) client?.unsubscribePresence(userId);
      subscribed.clear();
      if (isHubConfig(hub)) hub.deregister(this, done);
      else done();
    });
  }

  RED.nodes.registerType('hub-out', HubOut);
};
