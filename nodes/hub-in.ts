/**
 * `hub-in`: every event the selected hub-config's client receives, as a message (`msg.topic` = chat id,
 * `msg.payload` = the content with the text joined, `msg.hub` = envelope details), filtered by event type and
 * chat, optionally without non-normal message modes and without this user's echoes from its other devices.
 * Receipts and acks are the client's: an event reaches this node only after the client stored it durably.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { HubListeners } from './hub/connection';
import { nodeLog } from './shared/log';
import { HubNodeStatus } from './hub/node-status';
import { HUB_IN_EVENTS, INBOUND_MAPPERS, isHubInEvent, type HubInEvent, type InboundParts } from './hub/inbound';
import { isHubConfig } from './hub/types';

interface HubInDef extends NodeDef {
  hub: string;
  /** Event types (see HUB_IN_EVENTS); an array, or a comma-separated string. Default: messages only. */
  events?: string[] | string;
  /** Chat ids, separated by commas, spaces or new lines; empty = every chat. */
  chats?: string;
  skipModes?: boolean;
  skipSelf?: boolean;
}

function list(value: string[] | string | undefined): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? value.split(/[\s,]+/).filter((s) => s !== '') : [];
}

export = function (RED: NodeAPI) {
  function HubIn(this: Node, def: HubInDef): void {
    RED.nodes.createNode(this, def);
    const status = new HubNodeStatus(this, RED._('hub-in.status.received'), RED._('hub-in.status.failed'));
    const log = nodeLog(this);
    const hub = RED.nodes.getNode(def.hub);
    const requested = def.events === undefined ? ['message'] : list(def.events);
    const unknown = requested.filter((e) => !isHubInEvent(e));
    if (unknown.length > 0) log.warn(RED._('hub-in.errors.bad-events', { events: unknown.join(', ') }));
    const events = requested.filter(isHubInEvent);
    const chats = new Set(list(def.chats));
    const skipModes = def.skipModes !== false;
    const skipSelf = def.skipSelf !== false;

    /** The chat filter applies to events that belong to a chat; presence, notify and state pass it. */
    const wanted = (p: InboundParts): boolean =>
      (chats.size === 0 || p.chatId === undefined || chats.has(p.chatId)) && !(skipModes && !p.normalMode) && !(skipSelf && p.fromSelf);

    const listeners: HubListeners = {};
    for (const type of events) {
      const map = INBOUND_MAPPERS[type] as (value: unknown) => InboundParts;
      (listeners as Record<string, (value: unknown) => void>)[HUB_IN_EVENTS[type as HubInEvent]] = (value) => {
        const p = map(value);
        if (!wanted(p)) return;
        this.send({ topic: p.topic, payload: p.payload, hub: p.hub });
        status.passed();
      };
    }

    if (!isHubConfig(hub)) {
      status.set('red', 'ring', RED._('hub-in.errors.no-hub'));
      log.error(RED._('hub-in.errors.no-hub'));
    } else {
      hub.register(this, { onStatus: (view) => status.connection(view), listeners });
    }

    this.on('close', (_removed: boolean, done: () => void) => {
      if (isHubConfig(hub)) hub.deregister(this, done);
      else done();
    });
  }

  RED.nodes.registerType('hub-in', HubIn);
};
