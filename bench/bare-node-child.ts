/**
 * A bare `node` for `bench/gateway.bench.ts`: nothing loaded but what this file needs, an idle event loop for as long
 * as the gateway idles before its figure, then its RSS split as the gateway's is (`/proc/self/status`).
 */
import fs from 'node:fs';

setTimeout(() => {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  process.send!({ type: 'bare', rss: kb('VmRSS'), file: kb('RssFile'), anon: kb('RssAnon') + kb('RssShmem') }, () => process.exit(0));
}, 2000);
