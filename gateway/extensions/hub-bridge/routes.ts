/**
 * The mapping rules of the `hub:` section, applied: which hub chat a mesh message goes to (first matching rule), and
 * which mesh recipients a hub message goes to (every matching rule; a reply to a bridged mesh message goes back to
 * its sender when the rule says so). Pure functions of the rules and the message.
 */
import type { MeshMessage } from '../../../lib/mesh/message';
import type { HubToMeshRule, MeshToHubRule } from './bridge-config';

export interface MeshRouteContext {
  /** The message is addressed to this gateway. */
  toGateway: boolean;
}

export function meshRouteFor(rules: readonly MeshToHubRule[], message: MeshMessage, ctx: MeshRouteContext): MeshToHubRule | undefined {
  for (const rule of rules) {
    if (rule.appIds.size > 0 && !rule.appIds.has(message.app_id)) continue;
    if (rule.sender !== undefined && rule.sender !== message.sender) continue;
    if (rule.recipient === 'gateway' ? !ctx.toGateway : rule.recipient !== '*' && rule.recipient !== message.recipient) continue;
    return rule;
  }
  return undefined;
}

export interface MeshTarget {
  recipient: string;
  appId: string;
  /** Chosen because the hub message replies to a message from this sender. */
  viaReply: boolean;
}

/**
 * What a hub message replies to, as the bridge knows it: the mesh sender of a message this gateway bridged; `elsewhere`
 * for a bridged mesh message (its id says so) that another gateway of the site bridged; undefined for anything else.
 */
export type ReplyOrigin = { sender: string; appId: string } | 'elsewhere' | undefined;

/**
 * The recipients of a hub message in `chatId`. Recipients are distinct (two rules naming one address send once).
 * A rule with `replies_to_sender` sends a reply to a bridged message back to its sender, and only the gateway that
 * bridged it does: the others take no part in that reply (they would otherwise send it to the rule's recipient, a
 * node that never asked), so on a site the reply reaches the sender's node only.
 */
export function hubTargetsFor(rules: readonly HubToMeshRule[], chatId: string, origin: ReplyOrigin): MeshTarget[] {
  const out: MeshTarget[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    if (rule.chatId !== chatId) continue;
    if (origin === 'elsewhere' && rule.repliesToSender) continue;
    const viaReply = origin !== undefined && origin !== 'elsewhere' && rule.repliesToSender;
    const recipient = viaReply ? origin.sender : rule.recipient;
    if (recipient === undefined || seen.has(recipient)) continue;
    seen.add(recipient);
    out.push({ recipient, appId: viaReply && typeof origin === 'object' ? origin.appId : rule.appId, viaReply });
  }
  return out;
}
