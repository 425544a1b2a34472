/**
 * The registry entries a creator writes for the well-known components (META-066's core policies; PERM-002,
 * PERM-029 and DMS-002 own the policy choice, which we do not have: these defaults are written down in
 * docs/dictionary.md). COMPONENT_REGISTRY and SUPER_ADMIN_LIST get no entry, their authority being hardcoded.
 */
import { allThree, base, type ComponentPermissions } from './component-metadata';
import { ID } from './well-known';

export type ConversationKind = 'group' | 'dm' | 'sync';

export interface CoreEntry {
  readonly id: number;
  readonly componentType: number;
  readonly permissions: ComponentPermissions;
}

const ALLOW = base('ALLOW');
const DENY = base('DENY');
const ADMIN = base('ALLOW_IF_ADMIN');
const SUPER = base('ALLOW_IF_SUPER_ADMIN');

/** The core entries of a conversation kind: USER_DISPLAY_NAME for a group or DM, GROUP_IMAGE for a group only. */
export function coreRegistryEntries(kind: ConversationKind): CoreEntry[] {
  const dm = kind === 'dm';
  const entries: CoreEntry[] = [
    { id: ID.ADMIN_LIST, componentType: 6, permissions: allThree(SUPER) },
    {
      id: ID.GROUP_MEMBERSHIP,
      componentType: 4,
      // A DM's pair is fixed at creation; in a group anyone may add, an admin may remove.
      permissions: dm ? { insert: DENY, update: ALLOW, delete: DENY } : { insert: ALLOW, update: ALLOW, delete: ADMIN },
    },
    { id: ID.GROUP_NAME, componentType: 2, permissions: allThree(ALLOW) },
    { id: ID.GROUP_DESCRIPTION, componentType: 2, permissions: allThree(ALLOW) },
    { id: ID.GROUP_IMAGE_URL, componentType: 2, permissions: allThree(ALLOW) },
    { id: ID.MESSAGE_DISAPPEAR_FROM_NS, componentType: 1, permissions: allThree(dm ? ALLOW : ADMIN) },
    { id: ID.MESSAGE_DISAPPEAR_IN_NS, componentType: 1, permissions: allThree(dm ? ALLOW : ADMIN) },
    { id: ID.APP_DATA, componentType: 2, permissions: allThree(ALLOW) },
    { id: ID.MIN_SUPPORTED_PROTOCOL_VERSION, componentType: 2, permissions: allThree(dm ? ALLOW : SUPER) },
    { id: ID.COMMIT_LOG_SIGNER, componentType: 1, permissions: allThree(dm ? ALLOW : SUPER) },
  ];
  if (kind !== 'sync') {
    entries.push({ id: ID.USER_DISPLAY_NAME, componentType: 7, permissions: allThree(ALLOW) });
    if (kind === 'group') entries.push({ id: ID.GROUP_IMAGE, componentType: 1, permissions: allThree(ALLOW) });
  }
  return entries;
}
