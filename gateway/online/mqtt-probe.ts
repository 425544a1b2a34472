/**
 * One connection to the configured broker with the configured credentials, TLS files and protocol, then a clean
 * disconnect: the broker's verdict, without starting radios or publishing anything. The client id is the gateway's
 * with `-check` appended, so that a running gateway's session is not taken over, and there is no will.
 */
import fs from 'node:fs';
import { systemClock } from '../../lib/clock';
import mqtt, { type IClientOptions } from 'mqtt';
import type { CoreConfig } from '../config/types';
import { redactUrl } from '../mqtt/connection';
import { networkKind, type OnlineOutcome } from './outcome';

const NOT_AUTHORISED = new Set([4, 5, 0x86, 0x87, 0x8c]);
const UNSUPPORTED_VERSION = new Set([1, 0x84]);

function options(c: CoreConfig['mqtt'], clientId: string, version: 4 | 5): IClientOptions {
  const read = (file: string | null): Buffer | undefined => (file === null ? undefined : fs.readFileSync(file));
  const opts: IClientOptions = { clientId, protocolVersion: version, connectTimeout: c.connect_timeout_ms, reconnectPeriod: 0, clean: true, rejectUnauthorized: c.tls.reject_unauthorized };
  if (c.username !== null) opts.username = c.username;
  if (c.password !== null) opts.password = c.password;
  const ca = read(c.tls.ca);
  const cert = read(c.tls.cert);
  const key = read(c.tls.key);
  if (ca) opts.ca = ca;
  if (cert) opts.cert = cert;
  if (key) opts.key = key;
  // mqtt.js passes it to tls.connect; its type does not list it.
  if (c.tls.key_passphrase !== null) Object.assign(opts, { passphrase: c.tls.key_passphrase });
  if (c.tls.servername !== null) opts.servername = c.tls.servername;
  return opts;
}

function attempt(c: CoreConfig['mqtt'], clientId: string, version: 4 | 5): Promise<OnlineOutcome & { retryWith4?: boolean }> {
  const url = redactUrl(c.url);
  return new Promise((resolve) => {
    const client = mqtt.connect(c.url, options(c, clientId, version));
    let settled = false;
    const finish = (outcome: OnlineOutcome & { retryWith4?: boolean }): void => {
      if (settled) return;
      settled = true;
      systemClock.clearTimeout(timer);
      // The client's own listeners stay: its 'close' handler is what clears its connect timer.
      client.on('error', () => undefined);
      client.end(true);
      resolve(outcome);
    };
    const timer = systemClock.setTimeout(() => finish({ service: 'mqtt', ok: false, kind: 'timeout', detail: `no answer from ${url} within ${c.connect_timeout_ms} ms` }), c.connect_timeout_ms + 1000);
    client.on('connect', () => finish({ service: 'mqtt', ok: true, detail: `logged in to ${url} with MQTT ${version === 5 ? '5' : '3.1.1'}${c.username !== null ? ` as ${c.username}` : ''}` }));
    client.on('error', (err: Error & { code?: number | string }) => {
      const code = typeof err.code === 'number' ? err.code : undefined;
      if (code !== undefined && UNSUPPORTED_VERSION.has(code) && version === 5 && c.version === 'auto') return finish({ service: 'mqtt', ok: false, kind: 'error', detail: '', retryWith4: true });
      if (code !== undefined && NOT_AUTHORISED.has(code)) {
        return finish({ service: 'mqtt', ok: false, kind: 'refused', detail: `${url} refused the login${c.username !== null ? ` of ${c.username}` : ' (no user name configured)'}: ${err.message}; check mqtt.username and the password` });
      }
      const kind = networkKind(err);
      const hint = kind === 'tls' ? '; check mqtt.tls (ca, servername, reject_unauthorized)' : kind === 'unreachable' ? '; check mqtt.url and that the broker runs' : '';
      finish({ service: 'mqtt', ok: false, kind, detail: `${url}: ${err.message}${hint}` });
    });
    client.on('close', () => finish({ service: 'mqtt', ok: false, kind: 'unreachable', detail: `${url} closed the connection before answering; check mqtt.url and that the broker runs` }));
  });
}

export async function probeBroker(config: CoreConfig, clientId: string): Promise<OnlineOutcome> {
  const c = config.mqtt;
  try {
    const first = await attempt(c, `${clientId}-check`.slice(0, 64), c.version === 4 ? 4 : 5);
    if (!first.retryWith4) return first;
    return await attempt(c, `${clientId}-check`.slice(0, 64), 4);
  } catch (err) {
    return { service: 'mqtt', ok: false, kind: 'error', detail: (err as Error).message };
  }
}
