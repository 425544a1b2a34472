/**
 * `hub-config`: one ClawlingChat Message Hub account (URL, token, user and device) and the one connection every
 * hub-in and hub-out using it shares. The connection opens when the first of them registers and closes when the
 * last one leaves; its status is shown on each. The token is a credential: it reaches the client and the media
 * upload, never the flow file, a status or a log line. See docs/hub-nodes.md.
 */
import os from 'node:os';
import type { Node, NodeAPI } from 'node-red';
import type { HubLogger } from '../lib/hub';
import { toCodedError } from './shared/fail';
import { nodeLog } from './shared/log';
import { resolveHubConfig, type HubConfigCredentials, type HubConfigDef } from './hub/config-options';
import { HubConnection } from './hub/connection';
import { openHubClient } from './hub/open-client';
import { renderFailure, renderHubStatus, type Translate } from './hub/status-view';
import type { HubConfigNode, HubUserHooks } from './hub/types';

/** The "retry in N s" status of a backoff is refreshed this often (the longest backoff is 30 s). */
const BACKOFF_TICK_MS = 5000;

type ConfigInstance = HubConfigNode & Node<HubConfigCredentials>;

function line(message: string, fields?: Record<string, unknown>): string {
  return typeof fields?.code === 'string' ? `${fields.code}: ${message}` : message;
}

export = function (RED: NodeAPI) {
  function HubConfig(this: ConfigInstance, def: HubConfigDef): void {
    RED.nodes.createNode(this, def);
    const t = RED._ as unknown as Translate;
    const resolved = resolveHubConfig(def, this.credentials, {
      userDir: (RED.settings as { userDir?: string }).userDir,
      homeDir: os.homedir(),
      hostname: os.hostname(),
    });
    const log = nodeLog(this);
    const logger: HubLogger = {
      debug: (message, fields) => log.debug(line(message, fields)),
      info: (message, fields) => log.info(line(message, fields)),
      warn: (message, fields) => log.warn(line(message, fields)),
      error: (message, fields) => log.error(line(message, fields)),
    };
    const connection = new HubConnection({
      open: () => openHubClient(resolved, logger, (message) => log.warn(message)),
      render: (status) => renderHubStatus(status, t),
      renderFailure,
      failed: (err) => {
        const coded = toCodedError(err);
        log.error(`${coded.code}: ${coded.message}`);
      },
      backoffTickMs: BACKOFF_TICK_MS,
    });

    this.register = (user: Node, hooks: HubUserHooks = {}) => {
      connection.register({
        id: user.id,
        onStatus: hooks.onStatus ?? ((view) => user.status({ fill: view.fill, shape: view.shape, text: view.text })),
        listeners: hooks.listeners,
      });
    };
    this.deregister = (user: Node, done: () => void) => {
      connection.deregister(user.id).then(done, (err: unknown) => {
        log.warn(`closing the hub connection: ${toCodedError(err).message}`);
        done();
      });
    };
    this.getMediaEndpoint = () => ({ url: resolved.mediaUrl, token: typeof resolved.client.token === 'string' ? resolved.client.token : '' });
    this.hubClient = () => connection.client;
    this.unavailableReason = () => {
      const cause = connection.failureCause;
      if (cause === undefined) return undefined;
      const coded = toCodedError(cause);
      return { code: coded.code, message: coded.message };
    };

    this.on('close', (_removed: boolean, done: () => void) => {
      connection.close().then(done, (err: unknown) => {
        log.warn(`closing the hub connection: ${toCodedError(err).message}`);
        done();
      });
    });
  }

  RED.nodes.registerType<ConfigInstance, HubConfigDef, unknown, HubConfigCredentials>('hub-config', HubConfig, {
    credentials: { token: { type: 'password' } },
  });
};
