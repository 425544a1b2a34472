/** The resolved `nodes` and `devices` sections (defaults filled in by the schema in config-schema.ts). */

export interface NodesConfig {
  topic: string;
  names: Record<string, string>;
  heard_window_s: number;
  forget_after_s: number;
  discovery: boolean;
}

export interface ValueSource {
  regex?: string;
  group?: number;
  metadata?: string;
  json_pointer?: string;
}

export interface EntityMapping {
  key: string;
  name?: string;
  platform: 'sensor' | 'binary_sensor';
  from: ValueSource;
  type: 'number' | 'integer' | 'string' | 'boolean';
  scale: number;
  offset: number;
  true_values: string[];
  unit: string | null;
  device_class: string | null;
  state_class: 'measurement' | 'total' | 'total_increasing' | null;
  icon: string | null;
}

export interface DeviceMapping {
  match: { sender?: string; name?: string; app_id?: string; metadata?: Record<string, string>; content?: string };
  accept_claimed_sender: boolean;
  entities: EntityMapping[];
}
