/**
 * `npm start` stopped the way a process manager, an IDE's stop button or `kill <npm's pid>` does it: one signal to
 * npm's pid alone, not to its process group (as Ctrl-C in a terminal would). npm forwards SIGINT and SIGTERM to the
 * script's shell; the script `exec`s the demo so that the signal lands on the demo itself, which stops everything it
 * started. Before that, the shell died and left the demo, Node-RED, the broker and the dev hub running, and the next
 * start failed with PORT_IN_USE (issue 22).
 *
 * The real `npm start` of package.json runs here (npm run by this Node), on free ports and a scratch --dir.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';
import { alive, childrenOf, portRefused, type ChildProcessInfo } from '../support/processes';

/** Every process below `pid`, children first. */
function descendants(pid: number): ChildProcessInfo[] {
  const out: ChildProcessInfo[] = [];
  for (const child of childrenOf(pid)) out.push(child, ...descendants(child.pid));
  return out;
}

/** `npm start -- <args>` with the npm that runs this test (npm test), or the npm on PATH run by this Node. */
function npmStart(args: string[], dir: string): ChildProcess {
  const env = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
  };
  const full = ['start', '--', ...args, '--dir', dir];
  const npmCli = process.env.npm_execpath;
  return npmCli && /npm-cli\.js$/.test(npmCli)
    ? spawn(process.execPath, [npmCli, ...full], { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', full, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Lines of the child's stdout and stderr, and a wait for the first line matching a pattern. */
function collect(child: ChildProcess): { lines: string[]; line(test: RegExp): Promise<RegExpExecArray> } {
  const lines: string[] = [];
  const waiters: Array<{ test: RegExp; resolve: (m: RegExpExecArray) => void }> = [];
  let exited = false;
  const failAll = (): void => {
    for (const w of waiters.splice(0)) w.resolve(null as unknown as RegExpExecArray);
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        for (const w of waiters.slice()) {
          const m = w.test.exec(line);
          if (m) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    });
  }
  child.once('exit', () => {
    exited = true;
    failAll();
  });
  return {
    lines,
    async line(test: RegExp): Promise<RegExpExecArray> {
      const seen = lines.map((l) => test.exec(l)).find((m) => m);
      if (seen) return seen;
      const m = exited ? null : await new Promise<RegExpExecArray>((resolve) => waiters.push({ test, resolve }));
      assert.ok(m, `npm start ended before printing ${test}:\n${lines.join('\n')}`);
      return m;
    },
  };
}

const PORT_LINES = [
  /Node-RED editor: +http:\/\/127\.0\.0\.1:(\d+)\//,
  /Gateway status page: http:\/\/127\.0\.0\.1:(\d+)/,
  /Dev hub: +ws:\/\/127\.0\.0\.1:(\d+)\/ws/,
  /Dev hub admin: +http:\/\/127\.0\.0\.1:(\d+)\/admin/,
  /MQTT broker: +mqtt:\/\/127\.0\.0\.1:(\d+)/,
  /Gateway daemon: +127\.0\.0\.1:(\d+) /,
];

describe('npm start: a signal to npm’s pid stops everything the demo started', function () {
  this.timeout(180000);
  let dir: string;
  let npm: ChildProcess | undefined;
  let started: ChildProcessInfo[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawling-npm-start-'));
    started = [];
  });
  afterEach(() => {
    // A failed run must not leave its processes to the next test: stop what is still there, by pid.
    if (npm && npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    for (const p of started) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [signal, withNodeRed] of [
    ['SIGTERM', true],
    ['SIGINT', false],
  ] as const) {
    it(`${signal}${withNodeRed ? ', with Node-RED' : ', without Node-RED'}: the demo stops, its children end and every port closes`, async () => {
      const args = ['--port', '0', '--hub-port', '0', '--mqtt-port', '0', '--status-port', '0', '--daemon-port', '0', ...(withNodeRed ? [] : ['--no-node-red'])];
      npm = npmStart(args, dir);
      // npm may exit before the demo it exec'd has written its last lines: the pipes close only once every
      // process holding them (npm, the demo) has ended, so the output is complete then.
      const closed = (stream: NodeJS.ReadableStream): Promise<void> => new Promise((resolve) => stream.once('close', () => resolve()));
      const exited = Promise.all([new Promise<void>((resolve) => npm!.once('exit', () => resolve())), closed(npm.stdout!), closed(npm.stderr!)]);
      const out = collect(npm);
      await out.line(/^Press Ctrl-C to stop\.$/);
      const ports: number[] = [];
      for (const re of PORT_LINES) {
        const m = out.lines.map((l) => re.exec(l)).find((x) => x);
        if (m) ports.push(Number(m[1]));
      }
      assert.equal(ports.length, withNodeRed ? 6 : 5, out.lines.join('\n'));

      started = descendants(npm.pid!);
      const demo = started.find((p) => / dist\/cli\/clawling\.js demo /.test(` ${p.cmd} `));
      assert.ok(demo, `no demo process below npm: ${started.map((p) => `${p.pid} ${p.cmd}`).join('; ')}`);
      if (withNodeRed) {
        const nodeRedPid = Number(/ pid (\d+)\)$/.exec((await out.line(/Node-RED editor: /)).input)![1]);
        assert.ok(started.some((p) => p.pid === nodeRedPid), 'Node-RED is not among the processes below npm');
      }

      npm.kill(signal); // npm's pid only: its process group is left alone
      await exited;
      assert.ok(out.lines.includes('Demo stopped.'), `the demo did not stop by itself:\n${out.lines.join('\n')}`);
      const left = started.filter((p) => alive(p.pid));
      assert.deepEqual(left, [], `still running after npm ended: ${left.map((p) => `${p.pid} ${p.cmd}`).join('; ')}`);
      for (const port of ports) assert.ok(await portRefused(port), `port ${port} still takes connections`);
    });
  }
});
