/**
 * Readiness and the watchdog for the unit's `Type=notify`. Node has no API for sd_notify's datagram socket, so the
 * `systemd-notify` program sends each message (the unit's `NotifyAccess=all` lets a child of the service speak):
 * `READY=1` once the radios are open and the broker is up — or, after `readyWaitMs` without a broker, anyway with a
 * STATUS saying so, since a missing broker is something the gateway rides out (its outbox is on disk), not a failed
 * start —, and `WATCHDOG=1` from the event loop at half of `WATCHDOG_USEC`, so that a wedged loop stops them and
 * systemd restarts the service. Without `NOTIFY_SOCKET` (not under systemd, or `Type=simple`) nothing is spawned.
 */
import { execFile } from 'node:child_process';
import type { Clock, TimerHandle } from '../lib/clock';
import type { Logger } from './logger';

export interface NotifierOptions {
  env: NodeJS.ProcessEnv;
  clock: Clock;
  logger: Logger;
  /** The program that sends; default `systemd-notify` from PATH. */
  command?: string;
}

export class SystemdNotifier {
  readonly enabled: boolean;
  readonly #options: NotifierOptions;
  readonly #watchdogMs: number | undefined;
  #watchdog: TimerHandle | undefined;
  #failed = false;
  #closed = false;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.enabled = typeof options.env.NOTIFY_SOCKET === 'string' && options.env.NOTIFY_SOCKET !== '';
    const usec = Number(options.env.WATCHDOG_USEC);
    // WATCHDOG_PID names the process the watchdog is for; when it is another one, this process is not it.
    const forUs = options.env.WATCHDOG_PID === undefined || Number(options.env.WATCHDOG_PID) === process.pid;
    this.#watchdogMs = this.enabled && forUs && Number.isFinite(usec) && usec > 0 ? Math.max(1, Math.floor(usec / 2000)) : undefined;
  }

  /** Half the watchdog period, when systemd set one. */
  get watchdogIntervalMs(): number | undefined {
    return this.#watchdogMs;
  }

  /** The service is up: READY=1 with a status line, and the watchdog starts. */
  ready(status: string): void {
    if (this.#closed) return;
    this.#send(['--ready', `--status=${status}`]);
    if (this.#watchdogMs !== undefined) this.#armWatchdog(this.#watchdogMs);
  }

  status(text: string): void {
    this.#send([`--status=${text}`]);
  }

  /** Stopping: the watchdog ends (a long drain must not be killed as a hang) and systemd is told. */
  stopping(): void {
    this.#stopWatchdog();
    this.#send(['STOPPING=1']);
  }

  close(): void {
    this.#stopWatchdog();
    this.#closed = true;
  }

  #armWatchdog(ms: number): void {
    this.#watchdog = this.#options.clock.setTimeout(() => {
      this.#send(['WATCHDOG=1']);
      this.#armWatchdog(ms);
    }, ms);
  }

  #stopWatchdog(): void {
    this.#options.clock.clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
  }

  #send(args: string[]): void {
    if (!this.enabled || this.#closed || this.#failed) return;
    execFile(this.#options.command ?? 'systemd-notify', args, { env: this.#options.env, timeout: 10_000 }, (err) => {
      if (!err) return;
      // Said once: a unit of Type=notify without the program fails its start anyway, loudly, in systemd's log.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') this.#failed = true;
      this.#options.logger.warn({ err: err.message, args }, 'systemd-notify failed');
    });
  }
}
