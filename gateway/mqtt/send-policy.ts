/**
 * What the gateway agrees to transmit in its own name when MQTT asks (`mqtt.send_policy`, docs/mqtt.md "Send
 * policy"). Whoever may publish to `<base>/send` or to a node's notify topic speaks with the gateway's address, so the
 * broker's ACL is the first lock and this is the second: allowed app ids and recipients, protocol content (control,
 * sealed, file chunks) refused unless allowed, caps on TTL and priority, and one token bucket for the whole gateway.
 * Each refusal is a `GatewayError` with a stable code; a rate refusal says when to try again.
 */
import { isAddress } from '../../lib/mesh/address';
import { cutText } from '../../lib/text-cut';
import { TokenBucket } from '../../lib/token-bucket';
import { isGatedControlContent, isInternalContent } from '../../lib/mesh/control-prefixes';
import { priorityCode } from '../../lib/mesh/enums';
import { DEFAULT_TTL, type MeshMessage, type Priority } from '../../lib/mesh/message';
import type { CoreConfig } from '../config/types';
import { GatewayError } from '../errors';

export type SendPolicySettings = CoreConfig['mqtt']['send_policy'];

/** The kinds of protocol content an application never writes unless the policy says so. */
export const RESERVED_CLASSES = Object.freeze(['control', 'sealed', 'file_chunk'] as const);
export type ReservedClass = (typeof RESERVED_CLASSES)[number];

export type SendPolicyCode = 'SEND_POLICY_APP_ID' | 'SEND_POLICY_RECIPIENT' | 'SEND_POLICY_RESERVED' | 'SEND_POLICY_TTL' | 'SEND_POLICY_PRIORITY' | 'SEND_RATE_LIMITED';

/**
 * The protocol class of a message, or undefined for application content. Control is what the control gate would
 * judge; sealed is the MLS data plane (`__MLS_ENC__`, `__GROUP_MSG__`), internal but not gated.
 */
export function reservedClassOf(message: Pick<MeshMessage, 'content' | 'content_type'>): ReservedClass | undefined {
  if (message.content_type === 'file_chunk') return 'file_chunk';
  if (isGatedControlContent(message.content)) return 'control';
  if (isInternalContent(message.content)) return 'sealed';
  return undefined;
}


const PRIORITY_ORDER = (p: Priority): number => priorityCode(p);

function shown(text: string): string {
  return JSON.stringify(cutText(text, 65));
}

export class SendPolicy {
  private readonly appIds: ReadonlySet<string> | undefined;
  private readonly recipients: ReadonlySet<string> | undefined;
  private readonly allowed: ReadonlySet<string>;
  private readonly bucket: TokenBucket | undefined;

  constructor(
    private readonly settings: SendPolicySettings,
    now: () => number,
  ) {
    this.appIds = settings.app_ids === null ? undefined : new Set(settings.app_ids);
    this.recipients = settings.recipients === null ? undefined : new Set(settings.recipients);
    this.allowed = new Set(settings.allow_reserved);
    this.bucket = settings.rate_per_s === null ? undefined : new TokenBucket(settings.rate_per_s, settings.burst, now);
  }

  /** What a request that names no TTL or priority gets: the mesh defaults, lowered to the caps. */
  get defaults(): { ttl: number; priority: Priority } {
    const priority: Priority = PRIORITY_ORDER('medium') <= PRIORITY_ORDER(this.settings.max_priority) ? 'medium' : this.settings.max_priority;
    return { ttl: Math.min(DEFAULT_TTL, this.settings.max_ttl), priority };
  }

  /**
   * Throws `GatewayError` with a `SendPolicyCode` when the message may not go out; a message that passes every rule
   * spends a token of the rate limit (refused ones cost nothing: they put nothing on the air).
   */
  check(message: MeshMessage): void {
    const s = this.settings;
    if (this.appIds && !this.appIds.has(message.app_id)) {
      throw new GatewayError('SEND_POLICY_APP_ID', `app_id ${shown(message.app_id)} is not in mqtt.send_policy.app_ids`, { app_id: message.app_id });
    }
    if (this.recipients && !this.recipients.has(message.recipient)) {
      throw new GatewayError('SEND_POLICY_RECIPIENT', `recipient ${shown(message.recipient)} is not in mqtt.send_policy.recipients`);
    }
    const reserved = reservedClassOf(message);
    if (reserved !== undefined && !this.allowed.has(reserved)) {
      // The content itself is not repeated: it may be someone's sealed payload.
      throw new GatewayError('SEND_POLICY_RESERVED', `${reserved} content is protocol traffic; the gateway sends it only when mqtt.send_policy.allow_reserved lists ${reserved}`, { class: reserved });
    }
    if (message.ttl > s.max_ttl) {
      throw new GatewayError('SEND_POLICY_TTL', `ttl ${message.ttl} is above mqtt.send_policy.max_ttl (${s.max_ttl})`, { ttl: message.ttl, max_ttl: s.max_ttl });
    }
    if (PRIORITY_ORDER(message.priority) > PRIORITY_ORDER(s.max_priority)) {
      throw new GatewayError('SEND_POLICY_PRIORITY', `priority ${message.priority} is above mqtt.send_policy.max_priority (${s.max_priority})`, { priority: message.priority, max_priority: s.max_priority });
    }
    const wait = this.bucket?.wait() ?? 0;
    if (wait > 0) {
      throw new GatewayError('SEND_RATE_LIMITED', `more than ${s.burst} sends at once or ${s.rate_per_s}/s (mqtt.send_policy); try again in ${wait} ms`, { retryAfterMs: wait });
    }
  }
}

const shared = new WeakMap<object, SendPolicy>();

/**
 * The one policy (and so the one rate bucket) of a gateway, shared by every extension that sends for MQTT: keyed
 * by the gateway's broker connection, since extensions know that connection and never each other.
 */
export function sharedSendPolicy(owner: object, settings: SendPolicySettings, now: () => number): SendPolicy {
  let policy = shared.get(owner);
  if (!policy) shared.set(owner, (policy = new SendPolicy(settings, now)));
  return policy;
}

/** The checks the schema cannot state: a listed recipient must be a valid address (a typo would refuse every send). */
export function sendPolicyProblems(settings: SendPolicySettings): Array<{ path: string; problem: string }> {
  const problems: Array<{ path: string; problem: string }> = [];
  (settings.recipients ?? []).forEach((r, i) => {
    if (!isAddress(r)) problems.push({ path: `mqtt.send_policy.recipients[${i}]`, problem: `${shown(r)} is not a valid off1 address (checksum, length or characters)` });
  });
  return problems;
}

/** The requests `B/bridge/request/<name>` takes (extensions/bridge-control). */
export const BRIDGE_REQUESTS = ['log_level', 'restart', 'pairing'] as const;
export type BridgeRequest = (typeof BRIDGE_REQUESTS)[number];

/** `mqtt.send_policy.requests`: whether the gateway carries out this request (null: every request). */
export function requestAllowed(settings: SendPolicySettings, name: BridgeRequest): boolean {
  return settings.requests === null || settings.requests.includes(name);
}
