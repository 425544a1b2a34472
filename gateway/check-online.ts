/**
 * `clawling gateway --check --online`: reach every service the configuration names, with its credentials, and say
 * what each answered — the broker, then each enabled extension that has a service of its own (the hub). No radio is
 * opened and nothing is published, so it is safe beside a running gateway. Plain `--check` stays offline (it runs as
 * the unit's `ExecStartPre`, where a broker that is down must not stop the gateway from starting and queueing).
 */
import type { GatewayConfig } from './gateway-config';
import { EXTENSIONS, loadExtensionModule } from './extensions/index';
import { probeBroker } from './online/mqtt-probe';
import type { OnlineOutcome } from './online/outcome';

export async function checkOnline(config: GatewayConfig, clientId: string): Promise<OnlineOutcome[]> {
  const outcomes: OnlineOutcome[] = [];
  if (config.mqtt.enabled) outcomes.push(await probeBroker(config, clientId));
  for (const entry of EXTENSIONS) {
    if (!entry.enabled(config)) continue;
    const mod = await loadExtensionModule(entry);
    if (!mod?.checkOnline) continue;
    try {
      outcomes.push(await mod.checkOnline(config));
    } catch (err) {
      outcomes.push({ service: entry.section ?? entry.name, ok: false, kind: 'error', detail: (err as Error).message });
    }
  }
  return outcomes;
}

export function onlineLines(outcomes: readonly OnlineOutcome[]): string[] {
  if (outcomes.length === 0) return ['online: nothing to reach (MQTT and the hub are off)'];
  return outcomes.map((o) => `online ${o.service}: ${o.ok ? 'ok' : o.kind}: ${o.detail}`);
}
