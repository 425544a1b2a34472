/** `daemon.listen` as host and port; `[::1]:4242` for IPv6. */
import { DaemonError } from './errors';

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s]+)):([0-9]{1,5})$/.exec(listen);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new DaemonError('BAD_LISTEN', `daemon.listen must be host:port, got ${JSON.stringify(listen)}`, { listen });
  return { host: m[1] ?? m[2], port };
}
