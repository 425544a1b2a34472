/**
 * `--check --online` for the hub bridge: one session with the configured URL, token, user and device, up to the
 * hub's `hello-ok` or its refusal, on a memory store (the gateway's own state is not touched), then closed.
 */
import { systemClock } from '../../../lib/clock';
import { HubClient } from '../../../lib/hub/client';
import { MemoryStore } from '../../../lib/store';
import type { GatewayConfig } from '../../gateway-config';
import { networkKind, type OnlineOutcome } from '../../online/outcome';
import { resolveBridgeConfig } from './bridge-config';
import { readHubSettings } from './read-settings';

const WAIT_MS = 10_000;

export async function checkOnline(config: GatewayConfig): Promise<OnlineOutcome> {
  const cfg = resolveBridgeConfig(readHubSettings(config.hub), config.gateway.app_id);
  const client = new HubClient({
    url: cfg.url,
    token: cfg.token,
    userId: cfg.userId,
    ...(cfg.deviceId !== undefined ? { deviceId: `${cfg.deviceId}-check` } : {}),
    store: new MemoryStore(),
    backoff: { initialMs: WAIT_MS, maxMs: WAIT_MS },
  });
  try {
    return await new Promise<OnlineOutcome>((resolve) => {
      const timer = systemClock.setTimeout(() => resolve({ service: 'hub', ok: false, kind: 'timeout', detail: `no hello-ok from ${cfg.url} within ${WAIT_MS / 1000} s` }), WAIT_MS);
      client.on('state', (s) => {
        if (s.state === 'connected' || s.state === 'replaying') {
          systemClock.clearTimeout(timer);
          resolve({ service: 'hub', ok: true, detail: `logged in to ${cfg.url} as ${cfg.userId}` });
        } else if (s.state === 'auth_failed') {
          systemClock.clearTimeout(timer);
          resolve({ service: 'hub', ok: false, kind: 'refused', detail: `${cfg.url} refused the token of ${cfg.userId}; check hub.token, hub.token_file or CLAWLING_HUB_TOKEN` });
        } else if (s.state === 'backoff') {
          systemClock.clearTimeout(timer);
          const kind = s.cause === 'unreachable' ? networkKind({ message: s.reason ?? '' }) : 'error';
          resolve({ service: 'hub', ok: false, kind: kind === 'error' && s.cause === 'unreachable' ? 'unreachable' : kind, detail: `${cfg.url}: ${s.reason ?? s.cause ?? 'the connection ended'}; check hub.url` });
        }
      });
      client.start();
    });
  } finally {
    await client.stop();
  }
}
