/**
 * MetadataPolicy validity and evaluation: the part of PERM-001, PERM-008 and PERM-017 the dictionary needs.
 *
 * Valid: a base of ALLOW, DENY, ALLOW_IF_ADMIN or ALLOW_IF_SUPER_ADMIN, or a non-empty And/Any of valid policies.
 * Evaluation denies anything invalid (PERM-008), so a malformed tree can never authorize a write.
 */
import { BASE_POLICY_NAMES, BasePolicy, type BasePolicyName, type MetadataPolicy } from './component-metadata';
import { DictionaryError } from './errors';

export interface ActorRoles {
  readonly superAdmin: boolean;
  readonly admin: boolean;
}

export function isValidPolicy(policy: MetadataPolicy): boolean {
  switch (policy.kind) {
    case 'base':
      return policy.base >= BasePolicy.ALLOW && policy.base <= BasePolicy.ALLOW_IF_SUPER_ADMIN;
    case 'and':
    case 'any':
      return policy.policies.length > 0 && policy.policies.every(isValidPolicy);
    default:
      return false;
  }
}

/** ADMIN_LIST's restriction: every leaf is ALLOW_IF_ADMIN or ALLOW_IF_SUPER_ADMIN. */
export function isAdminOnlyPolicy(policy: MetadataPolicy): boolean {
  switch (policy.kind) {
    case 'base':
      return policy.base === BasePolicy.ALLOW_IF_ADMIN || policy.base === BasePolicy.ALLOW_IF_SUPER_ADMIN;
    case 'and':
    case 'any':
      return policy.policies.length > 0 && policy.policies.every(isAdminOnlyPolicy);
    default:
      return false;
  }
}

export function evaluatePolicy(policy: MetadataPolicy | undefined, roles: ActorRoles): boolean {
  if (!policy || !isValidPolicy(policy)) return false;
  return evaluateValid(policy, roles);
}

function evaluateValid(policy: MetadataPolicy, roles: ActorRoles): boolean {
  switch (policy.kind) {
    case 'base':
      switch (policy.base) {
        case BasePolicy.ALLOW:
          return true;
        case BasePolicy.ALLOW_IF_ADMIN:
          return roles.admin || roles.superAdmin;
        case BasePolicy.ALLOW_IF_SUPER_ADMIN:
          return roles.superAdmin;
        default:
          return false;
      }
    case 'and':
      return policy.policies.every((p) => evaluateValid(p, roles));
    case 'any':
      return policy.policies.some((p) => evaluateValid(p, roles));
    default:
      return false;
  }
}

/** Readable and JSON form: `"ALLOW_IF_ADMIN"`, `{"and":[…]}`, `{"any":[…]}`; unknown bases as `"UNKNOWN(7)"`. */
export type PolicyJson = string | { and: PolicyJson[] } | { any: PolicyJson[] } | null;

export function policyToJson(policy: MetadataPolicy): PolicyJson {
  switch (policy.kind) {
    case 'base':
      return BASE_POLICY_NAMES[policy.base] ?? `UNKNOWN(${policy.base})`;
    case 'and':
      return { and: policy.policies.map(policyToJson) };
    case 'any':
      return { any: policy.policies.map(policyToJson) };
    default:
      return null;
  }
}

/** The inverse of `policyToJson` for the names we define (catalogue definitions, node and CLI input). */
export function policyFromJson(value: unknown, where = 'policy', depth = 0): MetadataPolicy {
  if (depth > 32) throw new DictionaryError('INVALID_ARGUMENT', `${where}: nested too deeply`);
  if (typeof value === 'string') {
    const name = value.toUpperCase() as BasePolicyName;
    if (!(name in BasePolicy) || name === 'UNSPECIFIED') {
      throw new DictionaryError('INVALID_ARGUMENT', `${where}: unknown policy '${value}' (ALLOW, DENY, ALLOW_IF_ADMIN, ALLOW_IF_SUPER_ADMIN)`);
    }
    return { kind: 'base', base: BasePolicy[name] };
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const key = 'and' in obj ? 'and' : 'any' in obj ? 'any' : undefined;
    const list = key ? obj[key] : undefined;
    if (key && Array.isArray(list) && list.length > 0 && Object.keys(obj).length === 1) {
      return { kind: key, policies: list.map((p, i) => policyFromJson(p, `${where}.${key}[${i}]`, depth + 1)) };
    }
  }
  throw new DictionaryError('INVALID_ARGUMENT', `${where}: expected a policy name or {"and"|"any": [non-empty list]}`);
}
