import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock, settle } from '../../lib/clock';
import type { Logger } from '../../gateway/logger';
import { SystemdNotifier } from '../../gateway/systemd-notify';

describe('gateway SystemdNotifier', () => {
  let dir: string;
  let recorder: string;
  let calls: string;
  const warnings: string[] = [];
  const logger = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as unknown as Logger;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notify-'));
    calls = path.join(dir, 'calls');
    // Stands in for systemd-notify's command line only: records each call's arguments.
    recorder = path.join(dir, 'record-notify');
    fs.writeFileSync(recorder, `#!/bin/sh\necho "$*" >> ${calls}\n`, { mode: 0o755 });
    warnings.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // The recorder is a real process: on a loaded machine it may take a while to run, so wait up to 20 s for it.
  async function recorded(count: number): Promise<string[]> {
    for (let i = 0; i < 1000; i++) {
      const lines = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
      if (lines.length >= count) return lines;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
  }

  it('without NOTIFY_SOCKET it is off: no program is run, no watchdog is armed', async () => {
    const clock = new ManualClock();
    const n = new SystemdNotifier({ env: { WATCHDOG_USEC: '1000000' }, clock, logger, command: recorder });
    assert.equal(n.enabled, false);
    assert.equal(n.watchdogIntervalMs, undefined);
    n.ready('running');
    assert.equal(clock.pending(), 0);
    await settle(10);
    assert.equal(fs.existsSync(calls), false);
  });

  it('READY=1 with the status, then WATCHDOG=1 every half period from the clock, and none after stopping', async () => {
    const clock = new ManualClock();
    const n = new SystemdNotifier({ env: { NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '1000000' }, clock, logger, command: recorder });
    assert.equal(n.watchdogIntervalMs, 500);
    n.ready('running; sim0 ready');
    assert.deepEqual(await recorded(1), ['--ready --status=running; sim0 ready']);
    clock.advance(500);
    assert.deepEqual((await recorded(2))[1], 'WATCHDOG=1');
    clock.advance(500);
    assert.equal((await recorded(3))[2], 'WATCHDOG=1');
    n.stopping();
    assert.equal((await recorded(4))[3], 'STOPPING=1');
    assert.equal(clock.pending(), 0);
    assert.deepEqual(warnings, []);
  });

  it('a watchdog meant for another process (WATCHDOG_PID) is not fed from this one', () => {
    const n = new SystemdNotifier({ env: { NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '1000000', WATCHDOG_PID: String(process.pid + 1) }, clock: new ManualClock(), logger });
    assert.equal(n.enabled, true);
    assert.equal(n.watchdogIntervalMs, undefined);
  });
});
