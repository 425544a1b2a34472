/**
 * The gateway as a process: load and validate the configuration, build the logger, start the `Gateway`, and stop
 * it gracefully on SIGTERM or SIGINT (a second signal forces the exit). `cli/gateway.ts` parses the command line
 * and calls `runGateway`; tests call it the same way in a child process.
 */
import type { Writable } from 'node:stream';
import type { LoadedConfig } from './load-config';
import { collectSecrets } from './config/redact';
import { readConfigApart } from './read-apart';
import { Gateway } from './gateway';
import { child, createLogger, type Logger } from './logger';
import type { Radio } from './radios/radio';
import { backgroundClock } from '../lib/clock';
import { SystemdNotifier } from './systemd-notify';

export interface RunOptions {
  configFile?: string;
  env: NodeJS.ProcessEnv;
  stderr: Writable;
  /** Called once the gateway runs (tests reach it through this). */
  onStarted?: (gateway: Gateway) => void;
  /** Radios built by the caller instead of from `radios` of the config (the benchmark's remote peers). */
  radios?: (logger: Logger) => Radio[];
}

/** Reads the configuration in this process (`--check`, `--print-config`); the running gateway reads it apart. */
export async function loadGatewayConfig(file: string | undefined, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const { readGatewayConfig } = await import('./read-config');
  return readGatewayConfig(file, env);
}

/**
 * Runs until SIGTERM/SIGINT; resolves with the exit code. A restart asked for over MQTT (Home Assistant's button)
 * stops the gateway gracefully and starts it again in this process, with the configuration read anew.
 */
export async function runGateway(options: RunOptions): Promise<number> {
  for (;;) {
    const outcome = await runOnce(options);
    if (outcome !== 'restart') return outcome;
  }
}

async function runOnce(options: RunOptions): Promise<number | 'restart'> {
  const loaded = await readConfigApart(options.configFile, options.env);
  const logger: Logger = createLogger({ level: loaded.config.log.level, secrets: collectSecrets(loaded.config, loaded.schema) });
  for (const variable of loaded.env.unknown) logger.warn({ variable }, 'environment variable names no setting; ignored');
  let signals = 0;
  let restart = false;
  const notifier = new SystemdNotifier({ env: options.env, clock: backgroundClock, logger: child(logger, 'systemd') });
  let markStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    markStopped = resolve;
  });
  const onRestartRequest = (reason: string): void => {
    if (restart || signals > 0) return;
    restart = true;
    gateway.stop(`restart (${reason})`).then(markStopped, (err: unknown) => {
      logger.error({ err }, 'graceful stop before the restart failed');
      markStopped();
    });
  };
  const gateway = new Gateway(
    loaded.config,
    { logger, onRestartRequest, configWarnings: loaded.env.unknown.map((v) => `${v} names no setting and is ignored`), ...(options.radios ? { radios: options.radios(child(logger, 'radio')) } : {}) },
  );

  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      logger.flush();
      process.exit(1);
    }
    notifier.stopping();
    gateway.stop(signal).then(markStopped, (err: unknown) => {
      logger.error({ err }, 'graceful stop failed');
      markStopped();
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    await gateway.start();
  } catch (err) {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    const e = err as { code?: string; message?: string };
    options.stderr.write(`clawling gateway: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}\n`);
    logger.flush();
    return 1;
  }
  options.onStarted?.(gateway);
  if (notifier.enabled) tellReady(gateway, notifier, loaded.config.mqtt.enabled);

  // Radios and the MQTT client unref their timers; the process must live until it is told to stop.
  // A keep-alive handle, not a timer anyone waits for: the one raw interval the timer test allows.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  await stopped;
  notifier.close();
  clearInterval(keepAlive);
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  return restart ? 'restart' : 0;
}

/** How long READY=1 waits for the broker: well inside systemd's default start timeout (90 s). */
const READY_WAIT_MS = 30_000;

/** READY=1 once the broker is up (at once without MQTT), or after READY_WAIT_MS without it, saying so. */
function tellReady(gateway: Gateway, notifier: SystemdNotifier, mqtt: boolean): void {
  const radios = (): string => gateway.radios.map((r) => `${r.id} ${r.status().state}`).join(', ') || 'no radios';
  if (!mqtt) {
    notifier.ready(`running; ${radios()}; MQTT disabled`);
    return;
  }
  if (gateway.mqttConnected) {
    notifier.ready(`running; ${radios()}; broker connected`);
    return;
  }
  let done = false;
  const timer = backgroundClock.setTimeout(() => {
    if (done) return;
    done = true;
    notifier.ready(`running; ${radios()}; broker not reachable yet (queued messages wait on disk)`);
  }, READY_WAIT_MS);
  gateway.bus.on('mqttState', notifier, (e) => {
    if (e.connected && !done) {
      done = true;
      backgroundClock.clearTimeout(timer);
      notifier.ready(`running; ${radios()}; broker connected`);
    } else if (done) notifier.status(`running; ${radios()}; broker ${e.connected ? 'connected' : 'disconnected'}`);
  });
}
