/** The resolved configuration's core sections: every default filled in, paths absolute, secrets read from their files. */

import type { Priority } from '../../lib/mesh/message';
/** The sections the core owns; `GatewayConfig` (gateway/gateway-config.ts) adds the radios' and the mesh nodes'. */
export interface CoreConfig {
  gateway: {
    id: string | null;
    name: string;
    state_dir: string;
    app_id: string;
    store: 'sqlite' | 'memory';
    store_sync: 'full' | 'normal';
    shutdown_timeout_ms: number;
  };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
  mesh: {
    dedup_max_entries: number;
    dedup_ttl_s: number;
    forward: boolean;
    forward_jitter_min_ms: number;
    forward_jitter_max_ms: number;
    relay_fanout: number;
    require_transport_identity: boolean;
    ack_timeout_ms: number;
    max_frame_bytes: number;
    max_pending_deliveries: number;
  };
  mqtt: {
    enabled: boolean;
    url: string;
    base_topic: string | null;
    client_id: string | null;
    username: string | null;
    password: string | null;
    password_file: string | null;
    version: 'auto' | 4 | 5;
    keepalive_s: number;
    connect_timeout_ms: number;
    reconnect_min_ms: number;
    reconnect_max_ms: number;
    inflight: number;
    outbox_max_entries: number;
    raw_frames: boolean;
    health_interval_s: number;
    tls: {
      ca: string | null;
      cert: string | null;
      key: string | null;
      key_passphrase: string | null;
      reject_unauthorized: boolean;
      servername: string | null;
    };
    send_policy: {
      app_ids: string[] | null;
      recipients: string[] | null;
      allow_reserved: Array<'control' | 'sealed' | 'file_chunk'>;
      max_ttl: number;
      max_priority: Priority;
      rate_per_s: number | null;
      burst: number;
    };
    site: { id: string | null; topic: string | null; share_group: string | null; v311_owner: boolean };
    homeassistant: { enabled: boolean; discovery_prefix: string; status_topic: string };
  };
  http: { enabled: boolean; host: string; port: number; recent_messages: number; health_mqtt_down_ms: number };
  hub: { enabled: boolean; [option: string]: unknown };
}
