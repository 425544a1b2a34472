/**
 * What a registry delta may do (META-014, META-015) and what an inserted or updated entry must be: a
 * ComponentMetadata with `permissions` and all three member policies, every present policy valid under PERM-017,
 * and ADMIN_LIST's policies limited to ALLOW_IF_ADMIN / ALLOW_IF_SUPER_ADMIN.
 */
import { type ComponentPermissions, decodeComponentMetadata, type MetadataPolicy } from './component-metadata';
import { isImmutable, isInComponentSpace, isReserved } from './component-ids';
import { type WriteAction } from './delta';
import { DictionaryError } from './errors';
import { isAdminOnlyPolicy, isValidPolicy } from './policy';
import { ID } from './well-known';

export interface RuleProblem {
  readonly reason: string;
  readonly rule: string;
  readonly message: string;
}

/** A registry key this delta may not name for `action`, or `undefined`. */
export function registryKeyProblem(id: number, action: WriteAction): RuleProblem | undefined {
  const hex = `0x${id.toString(16).toUpperCase().padStart(4, '0')}`;
  if (!isInComponentSpace(id) && !isReserved(id)) {
    return { reason: 'REGISTRY_KEY_FORBIDDEN', rule: 'META-014', message: `registry entry ${hex} is below the component space` };
  }
  if (isReserved(id)) return { reason: 'REGISTRY_KEY_FORBIDDEN', rule: 'META-014', message: `registry entry ${hex} is in the reserved range` };
  if (id === ID.COMPONENT_REGISTRY || id === ID.SUPER_ADMIN_LIST) {
    return { reason: 'REGISTRY_KEY_FORBIDDEN', rule: 'META-014', message: `registry entry ${hex} names a hardcoded component` };
  }
  if (isImmutable(id) && action !== 'insert') {
    return { reason: 'REGISTRY_IMMUTABLE_ENTRY', rule: 'META-015', message: `registry entry ${hex} of an immutable component cannot be ${action}d` };
  }
  return undefined;
}

const POLICY_FIELDS = ['insert', 'update', 'delete'] as const;

/** Why `raw` is not an acceptable entry for `id`, or `undefined`. */
export function registryEntryProblem(id: number, raw: Uint8Array): RuleProblem | undefined {
  const hex = `0x${id.toString(16).toUpperCase().padStart(4, '0')}`;
  let meta;
  try {
    meta = decodeComponentMetadata(raw, `registry entry ${hex}`);
  } catch (err) {
    if (!(err instanceof DictionaryError)) throw err;
    return { reason: 'REGISTRY_ENTRY_INVALID', rule: 'META-014', message: `registry entry ${hex} does not decode: ${err.message}` };
  }
  if (!meta.permissions) return { reason: 'REGISTRY_ENTRY_INVALID', rule: 'META-014', message: `registry entry ${hex} has no permissions` };
  for (const f of POLICY_FIELDS) {
    if (!meta.permissions[f]) {
      return { reason: 'REGISTRY_ENTRY_INVALID', rule: 'META-014', message: `registry entry ${hex} has no ${f}_policy` };
    }
  }
  const adminOnly = id === ID.ADMIN_LIST;
  return permissionsProblem(hex, 'permissions', meta.permissions, adminOnly) ??
    (meta.externalCommitterPermissions ? permissionsProblem(hex, 'external_committer_permissions', meta.externalCommitterPermissions, adminOnly) : undefined);
}

function permissionsProblem(hex: string, where: string, perms: ComponentPermissions, adminOnly: boolean): RuleProblem | undefined {
  for (const f of POLICY_FIELDS) {
    const p: MetadataPolicy | undefined = perms[f];
    if (!p) continue;
    if (!isValidPolicy(p)) {
      return { reason: 'POLICY_INVALID', rule: 'PERM-017', message: `registry entry ${hex}: ${where}.${f}_policy is not a valid policy` };
    }
    if (adminOnly && !isAdminOnlyPolicy(p)) {
      return {
        reason: 'POLICY_INVALID',
        rule: 'PERM-017',
        message: `registry entry ${hex}: ADMIN_LIST accepts only ALLOW_IF_ADMIN or ALLOW_IF_SUPER_ADMIN (${where}.${f}_policy)`,
      };
    }
  }
  return undefined;
}
