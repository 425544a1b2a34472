/**
 * Per-node topics. They sit under `nodes.topic` (default `clawling/nodes`), outside any gateway's base topic, so
 * that every gateway of a site that hears a node writes the same topics and Home Assistant sees one device.
 */
import { topicLevel } from '../mqtt/topics';

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
  sendResult(address: string): string {
    return `${this.root}/${topicLevel(address)}/send/result`;
  }

  /** The address of a `send` topic, or undefined when `topic` is not one. */
  addressOfSend(topic: string): string | undefined {
    const prefix = `${this.root}/`;
    if (!topic.startsWith(prefix) || !topic.endsWith('/send')) return undefined;
    const level = topic.slice(prefix.length, -'/send'.length);
    if (level.includes('/')) return undefined;
    try {
      return decodeURIComponent(level);
    } catch {
      return undefined;
    }
  }
}
