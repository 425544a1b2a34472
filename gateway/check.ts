/**
 * The readiness half of `clawling gateway --check`, after the configuration validated: can the store open, and
 * can each radio work on this host. One line each, with the remedy on the same line.
 *
 * Exit policy (docs/gateway.md "Health and readiness"): a store that cannot open makes `--check` fail, since the
 * gateway would refuse to start anyway; a radio that is not ready is reported but does not, because the gateway
 * starts without it (an unplugged dongle is picked up when it appears) and the systemd unit runs `--check` before
 * every start. `--strict` makes a radio that is not ready fail the check too.
 */
import { loadSqliteDriver } from '../lib/store';
import type { GatewayConfig } from './gateway-config';
import { checkRadioReadiness, formatReadiness, type RadioReadiness, type ReadinessProbes } from './radios/readiness';
import { resolveRadioConfig } from './radios/radio-config';
import { MEMORY_OPT_IN, storeRefusal } from './store-choice';

export interface CheckReport {
  lines: string[];
  storeOk: boolean;
  radios: RadioReadiness[];
}

function checkStore(config: GatewayConfig): { ok: boolean; line: string } {
  if (config.gateway.store === 'memory') {
    return { ok: true, line: 'store: memory (gateway.store: memory; queued messages are lost on restart)' };
  }
  try {
    loadSqliteDriver();
    return { ok: true, line: `store: sqlite, ready (node:sqlite, Node.js ${process.version})` };
  } catch (err) {
    const refusal = storeRefusal(err);
    const e = err as { message?: string };
    return { ok: false, line: `store: not ready: ${e.message ?? String(err)}${refusal ? `; ${MEMORY_OPT_IN}` : ''}` };
  }
}

export async function checkReadiness(config: GatewayConfig, probes: ReadinessProbes = {}): Promise<CheckReport> {
  const store = checkStore(config);
  const radios = await Promise.all(config.radios.map((rc, i) => checkRadioReadiness(resolveRadioConfig(rc, `radios[${i}]`), `radios[${i}]`, probes)));
  return { lines: [store.line, ...radios.map(formatReadiness)], storeOk: store.ok, radios };
}
