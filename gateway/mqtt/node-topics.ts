/**
 * Per-node topics. They sit under `nodes.topic` (default `clawling/nodes`), outside any gateway's base topic, so
 * that every gateway of a site that hears a node writes the same topics and Home Assistant sees one device. Shared
 * by Home Assistant's node devices, which write them, and the web UI, which reads the other gateways' `via` views.
 */
import { topicLevel } from './topics';

export class NodeTopics {
  constructor(readonly root: string) {}

  /** Retained JSON: connected, RSSI, last seen, the last message, the typed readings. */
  state(address: string): string {
    return `${this.root}/${topicLevel(address)}/state`;
  }

  /** Text in: sent to the node as a mesh text message (Home Assistant's notify entity). */
  send(address: string): string {
    return `${this.root}/${topicLevel(address)}/send`;
  }

  get sendFilter(): string {
    return `${this.root}/+/send`;
  }

  /** JSON out: what became of each message sent through `send`. */
  /** Not retained: one JSON event per message (`event_type`, app id, text), for the event entity and triggers. */
  event(address: string): string {
    return `${this.root}/${topicLevel(address)}/event`;
  }

  sendResult(address: string): string {
    return `${this.root}/${topicLevel(address)}/send/result`;
  }

  /** Retained JSON per gateway that hears the node: that gateway's own view (connected, RSSI, last seen). */
  via(address: string, gatewayId: string): string {
    return `${this.root}/${topicLevel(address)}/via/${topicLevel(gatewayId)}`;
  }

  get viaFilter(): string {
    return `${this.root}/+/via/+`;
  }

  /** The address and gateway id of a `via` topic, or undefined when `topic` is not one. */
  parseVia(topic: string): { address: string; gatewayId: string } | undefined {
    const prefix = `${this.root}/`;
    if (!topic.startsWith(prefix)) return undefined;
    const parts = topic.slice(prefix.length).split('/');
    if (parts.length !== 3 || parts[1] !== 'via') return undefined;
    const address = unlevel(parts[0]!);
    const gatewayId = unlevel(parts[2]!);
    return address !== undefined && gatewayId !== undefined ? { address, gatewayId } : undefined;
  }

  /** Text in (an address, or `{"address": …}`): every gateway of the site forgets that node. */
  get forget(): string {
    return `${this.root}/forget`;
  }

  /** The address of a `send` topic, or undefined when `topic` is not one. */
  addressOfSend(topic: string): string | undefined {
    const prefix = `${this.root}/`;
    if (!topic.startsWith(prefix) || !topic.endsWith('/send')) return undefined;
    const level = topic.slice(prefix.length, -'/send'.length);
    if (level.includes('/')) return undefined;
    return unlevel(level);
  }
}

/** The inverse of `topicLevel`. */
function unlevel(level: string): string | undefined {
  try {
    return decodeURIComponent(level);
  } catch {
    return undefined;
  }
}
