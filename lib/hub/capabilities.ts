/**
 * The capability map of `connect` (guide §3.3). The client implements every capability but `e2ee`, and advertises
 * them all; `reliability` picks the reliable-delivery generations (v2 is always advertised together with v1, as
 * §3.3 requires, so an older hub falls back cleanly and `history.truncated` keeps working).
 */
import { HubError } from './errors';

export const CAPABILITY_NAMES = [
  'multi_device',
  'device_replay',
  'chat_meta_events',
  'delivery_receipt',
  'notify_signals',
  'permission_events',
  'history_sync',
  'reliable_delivery',
  'reliable_delivery_v2',
  'e2ee',
] as const;

export type CapabilityName = (typeof CAPABILITY_NAMES)[number];
export type Capabilities = Record<CapabilityName, boolean>;

/** `v2`: dseq acks (falls back to v1 when not granted); `v1`: storage-seq cursor acks; `legacy`: advance on write. */
export type Reliability = 'v2' | 'v1' | 'legacy';

export function capabilitiesFor(reliability: Reliability, overrides: Partial<Capabilities> = {}): Capabilities {
  if (reliability !== 'v2' && reliability !== 'v1' && reliability !== 'legacy') {
    throw new HubError('BAD_OPTIONS', `reliability must be 'v2', 'v1' or 'legacy', got ${String(reliability)}`);
  }
  if (overrides.e2ee) throw new HubError('BAD_OPTIONS', 'this client does not implement e2ee and must not advertise it');
  const caps: Capabilities = {
    multi_device: true,
    device_replay: true,
    chat_meta_events: true,
    delivery_receipt: true,
    notify_signals: true,
    permission_events: true,
    history_sync: true,
    reliable_delivery: reliability !== 'legacy',
    reliable_delivery_v2: reliability === 'v2',
    e2ee: false,
  };
  for (const name of CAPABILITY_NAMES) {
    const value = overrides[name];
    if (value !== undefined) caps[name] = value;
  }
  if (caps.reliable_delivery_v2 && !caps.reliable_delivery) {
    throw new HubError('BAD_OPTIONS', 'reliable_delivery_v2 must be advertised together with reliable_delivery (guide §3.3)');
  }
  return caps;
}
