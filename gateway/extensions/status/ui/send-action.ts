/**
 * `POST api/nodes/<address>/send` with `{"text": "…", "app_id"?: "…"}`: the node page's form. It goes through the
 * gateway's one send path (the same request parser and the same send policy, rate included, as `<base>/send` and
 * Home Assistant's notify entities), so the web UI is no wider a door into the mesh than MQTT. Once the gate has let
 * the request in, the answer is a stream of JSON lines with the words `<base>/send/result` uses, written as each
 * happens: `sent`, then `acked` or `ack_timeout`; or one `no_route` / `rejected` line with a coded error.
 */
import type http from 'node:http';
import type { Clock } from '../../../../lib/clock';
import type { GatewayConfig } from '../../../gateway-config';
import type { GatewayInfo } from '../../../gateway-info';
import { parseSendRequest } from '../../../mqtt/send-request';
import type { SendPolicy } from '../../../mqtt/send-policy';
import type { MeshApi } from '../../../router';
import { readJsonBody, refuseAction, sendRefusal } from './action-gate';

export interface SendActionDeps {
  config: GatewayConfig;
  info: GatewayInfo;
  mesh: MeshApi;
  clock: Clock;
  policy: SendPolicy;
}

export async function handleSendAction(req: http.IncomingMessage, res: http.ServerResponse, address: string, deps: SendActionDeps): Promise<void> {
  const refusal = refuseAction(req, deps.config.http.auth_token, true);
  if (refusal) return sendRefusal(res, refusal);
  const read = await readJsonBody(req);
  if ('refusal' in read) return sendRefusal(res, read.refusal);
  const { text, app_id: appId } = read.body;
  if (typeof text !== 'string' || text.length === 0) return sendRefusal(res, { status: 400, code: 'UI_BAD_BODY', message: 'text must be a non-empty string' });
  if (appId !== undefined && typeof appId !== 'string') return sendRefusal(res, { status: 400, code: 'UI_BAD_BODY', message: 'app_id must be a string' });

  res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-accel-buffering': 'no' });
  const line = (body: Record<string, unknown>): void => {
    res.write(`${JSON.stringify(body)}\n`);
  };
  let id: string | undefined;
  try {
    const request = { recipient: address, content: text, ...(appId !== undefined ? { app_id: appId } : {}) };
    const { message } = parseSendRequest(Buffer.from(JSON.stringify(request)), {
      address: deps.info.address,
      appId: deps.config.gateway.app_id,
      now: () => deps.clock.now(),
      defaults: deps.policy.defaults,
    });
    id = message.id.toString();
    deps.policy.check(message);
    const outcome = await deps.mesh.send(message);
    line({ id, status: 'sent', via: outcome.via });
    if (outcome.ack) {
      const ack = await outcome.ack;
      line(ack ? { id, status: 'acked', ack: { from: ack.from, hop_count: ack.hopCount } } : { id, status: 'ack_timeout' });
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'SEND_FAILED';
    line({ ...(id !== undefined ? { id } : {}), status: code === 'NO_ROUTE' ? 'no_route' : 'rejected', error: { code, message: (err as Error).message } });
  }
  res.end();
}
