/**
 * The `daemon:` section of gateway.yaml: the gateway-daemon v1 listener that phones on the LAN attach to
 * (docs/gateway-daemon.md explains each setting and why its default is what it is).
 */
import type { JsonSchema } from '../../config/schema';

export interface DaemonConfig {
  enabled: boolean;
  listen: string;
  max_sessions: number;
  attach_grace_ms: number;
  submit_rate_per_s: number;
  submit_burst: number;
  bytes_per_s: number;
  bytes_burst: number;
  max_write_buffer_bytes: number;
  presence_ttl_s: number;
  max_watched_peers: number;
  verdict_timeout_ms: number;
}

const int = (minimum: number, maximum: number, dflt: number, description: string): JsonSchema => ({ type: 'integer', minimum, maximum, default: dflt, description });

export const DAEMON_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'The gateway-daemon v1 listener (docs/gateway-daemon.md): devices on the LAN attach, submit, and get verdicts and presence.',
  properties: {
    enabled: { type: 'boolean', default: false },
    listen: {
      type: 'string',
      default: '127.0.0.1:4242',
      pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^:\\s]+):[0-9]{1,5}$',
      description: 'host:port of the plain-TCP listener. 0.0.0.0 or a LAN address opens it to the network (no TLS: trusted LAN only).',
    },
    max_sessions: int(1, 10000, 64, 'Connections held at once, attached or not; one more is told disconnected and closed.'),
    attach_grace_ms: int(10000, 600000, 10000, 'An unattached connection becomes verdict-only after this long (never under 10 s, the clients’ attach timeout).'),
    submit_rate_per_s: int(1, 100000, 20, 'Submissions per second per session, refilled continuously.'),
    submit_burst: int(1, 100000, 100, 'Submissions a session may make at once before submit_rate_per_s applies.'),
    bytes_per_s: int(1024, 1073741824, 262144, 'Frame bytes per second per session.'),
    bytes_burst: int(1048576, 1073741824, 2097152, 'Frame bytes a session may submit at once (at least one largest frame).'),
    max_write_buffer_bytes: int(2097152, 268435456, 4194304, 'A session whose unread output passes this is disconnected (a slow reader).'),
    presence_ttl_s: int(1, 86400, 30, 'How long a node heard on the mesh stays online in presence answers after it was last heard.'),
    max_watched_peers: int(0, 10000, 256, 'Peers one session may watch for unsolicited presence updates.'),
    verdict_timeout_ms: int(100, 60000, 3000, 'How long a submission waits for the router to write it before it is answered `not_forwarded`.'),
  },
};
