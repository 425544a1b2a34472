/**
 * `POST api/nodes/<address>/forget` (body `{}`): the node page's Forget button. The web UI's book drops the node at
 * once; with MQTT on, the address also goes to `<nodes.topic>/forget`, the site-wide forget command every gateway's
 * Home Assistant node devices obey (docs/home-assistant.md), so the node's retained device is cleared everywhere, as
 * that command does. A node heard again comes back, as after any forget.
 */
import type http from 'node:http';
import type { MqttConnection } from '../../../mqtt/connection';
import type { NodeTopics } from '../../../mqtt/node-topics';
import type { GatewayConfig } from '../../../gateway-config';
import { readJsonBody, refuseAction, sendRefusal } from './action-gate';
import type { NodeBook } from './node-book';

export interface ForgetActionDeps {
  config: GatewayConfig;
  book: NodeBook;
  mqtt?: { connection: MqttConnection; topics: NodeTopics };
}

export async function handleForgetAction(req: http.IncomingMessage, res: http.ServerResponse, address: string, deps: ForgetActionDeps): Promise<void> {
  const refusal = refuseAction(req, deps.config.http.auth_token, true);
  if (refusal) return sendRefusal(res, refusal);
  const read = await readJsonBody(req);
  if ('refusal' in read) return sendRefusal(res, read.refusal);
  const known = deps.book.forget(address);
  let site = false;
  if (deps.mqtt?.connection.connected) {
    deps.mqtt.connection.publish(deps.mqtt.topics.forget, address, { qos: 1 }, () => undefined);
    site = true;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(JSON.stringify({ address, forgotten: known, site }));
}
