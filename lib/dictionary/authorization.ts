/**
 * Write authority for one component write, always against the pre-commit state (PERM-010): the hardcoded
 * authority of COMPONENT_REGISTRY and SUPER_ADMIN_LIST (PERM-026) and otherwise the component's registry entry
 * (PERM-012), member or external-committer policies, unset meaning deny.
 *
 * Hardcoded authority as this library implements it (written down in docs/dictionary.md): super admins may
 * write both; in a DM, where there are no super admins, either member of the pair may write registry entries of
 * application-range ids; an external committer may write neither.
 */
import { isApplicationId } from './component-ids';
import { type WriteAction } from './delta';
import { type GroupView } from './group-view';
import { evaluatePolicy } from './policy';
import { ConversationType, ID } from './well-known';

export type AuthorizationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'NOT_AUTHORIZED' | 'NO_REGISTRY_ENTRY'; readonly rule: string; readonly message: string };

export interface Writer {
  /** The committer's inbox id (32 bytes). */
  readonly actor: Uint8Array;
  /** An MLS external commit (RFC 9420 §12.4.3.2). */
  readonly external: boolean;
}

const ALLOWED: AuthorizationResult = { ok: true };

export function authorizeWrite(view: GroupView, id: number, action: WriteAction, writer: Writer, registryKey?: number): AuthorizationResult {
  const hex = `0x${id.toString(16).toUpperCase()}`;
  if (id === ID.COMPONENT_REGISTRY || id === ID.SUPER_ADMIN_LIST) {
    if (writer.external) return deny('NOT_AUTHORIZED', 'PERM-026', `an external committer cannot write ${hex}`);
    if (view.roles(writer.actor).superAdmin) return ALLOWED;
    if (
      id === ID.COMPONENT_REGISTRY &&
      registryKey !== undefined &&
      isApplicationId(registryKey) &&
      view.conversationType() === ConversationType.DM &&
      view.isDmMember(writer.actor)
    ) {
      return ALLOWED;
    }
    return deny('NOT_AUTHORIZED', 'PERM-026', `only a super admin may ${action} ${hex}${registryKey === undefined ? '' : ` entry 0x${registryKey.toString(16).toUpperCase()}`}`);
  }
  const entry = view.registryEntry(id);
  if (!entry) return deny('NO_REGISTRY_ENTRY', 'PERM-012', `${hex} has no registry entry`);
  const meta = entry.metadata;
  if (!meta || !meta.permissions) {
    return deny('NO_REGISTRY_ENTRY', 'PERM-012', `${hex}'s registry entry is not usable${entry.problem ? ` (${entry.problem})` : ''}`);
  }
  const perms = writer.external ? meta.externalCommitterPermissions : meta.permissions;
  const policy = perms?.[action];
  if (!evaluatePolicy(policy, view.roles(writer.actor))) {
    return deny('NOT_AUTHORIZED', 'PERM-010', `${writer.external ? 'the external committer' : 'the committer'} may not ${action} ${hex}`);
  }
  return ALLOWED;
}

function deny(reason: 'NOT_AUTHORIZED' | 'NO_REGISTRY_ENTRY', rule: string, message: string): AuthorizationResult {
  return { ok: false, reason, rule, message };
}
