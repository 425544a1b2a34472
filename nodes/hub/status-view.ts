/**
 * The connection's state as a Node-RED status, the same for every node that uses one hub-config. Texts are
 * rendered on the runtime side (the backoff needs its seconds), with Node-RED's own `common.status` words where
 * they fit.
 */
import type { NodeStatusFill, NodeStatusShape } from 'node-red';
import { toCodedError } from '../shared/fail';
import type { HubState, HubStatus } from '../../lib/hub';

export interface StatusView {
  /** `unavailable`: the client could not be built (the text is the error code). */
  state: HubState | 'unavailable';
  fill: NodeStatusFill;
  shape: NodeStatusShape;
  text: string;
}

/** `RED._` of the hub-config module: keys without a namespace are the hub-config catalogue's. */
export type Translate = (key: string, substitutions?: Record<string, string | number>) => string;

export function renderHubStatus(status: HubStatus, t: Translate): StatusView {
  const { state } = status;
  switch (state) {
    case 'idle':
    case 'connecting':
      return { state, fill: 'yellow', shape: 'ring', text: t('node-red:common.status.connecting') };
    case 'replaying':
      return { state, fill: 'yellow', shape: 'dot', text: t('hub-config.status.replaying') };
    case 'connected':
      return { state, fill: 'green', shape: 'dot', text: t('node-red:common.status.connected') };
    case 'backoff': {
      const seconds = Math.max(1, Math.ceil((status.retryInMs ?? 0) / 1000));
      return { state, fill: 'yellow', shape: 'ring', text: t('hub-config.status.backoff', { seconds }) };
    }
    case 'auth_failed':
      return { state, fill: 'red', shape: 'ring', text: t('hub-config.status.auth-failed') };
    case 'stopped':
      return { state, fill: 'grey', shape: 'ring', text: t('node-red:common.status.disconnected') };
  }
}

export function renderFailure(err: unknown): StatusView {
  return { state: 'unavailable', fill: 'red', shape: 'ring', text: toCodedError(err).code };
}
