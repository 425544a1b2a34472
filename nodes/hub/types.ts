/**
 * What hub-in, hub-out and media-upload see of a hub-config node (CONTRACTS.md, "Node-RED hub-config").
 */
import type { Node } from 'node-red';
import type { HubClient } from '../../lib/hub';
import type { HubListeners } from './connection';
import type { StatusView } from './status-view';

export interface HubUserHooks {
  /** Default: the node shows the connection status as it is. */
  onStatus?(view: StatusView): void;
  /** Client events the node wants; attached while it is registered, to whichever client is current. */
  listeners?: HubListeners;
}

export interface HubConfigNode extends Node {
  /** A user node appears: the first one opens the connection. */
  register(node: Node, hooks?: HubUserHooks): void;
  /** A user node closes; `done` runs once its listeners are gone (and the client stopped, if it was the last). */
  deregister(node: Node, done: () => void): void;
  /** For media-upload: the media service base URL and the same bearer token as the WebSocket. */
  getMediaEndpoint(): { url: string; token: string };
  /** The shared client, or undefined while there is none (see `unavailableReason`). */
  hubClient(): HubClient | undefined;
  /** Why there is no client: the code and message of the failure, if one happened. */
  unavailableReason(): { code: string; message: string } | undefined;
}

export function isHubConfig(node: unknown): node is HubConfigNode {
  const n = node as Partial<HubConfigNode> | null | undefined;
  return typeof n?.register === 'function' && typeof n.deregister === 'function' && typeof n.hubClient === 'function';
}
