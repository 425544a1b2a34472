/**
 * Backend catalogue definitions of application fields: eligibility (META-066 and the paragraph after META-068),
 * the registry entry each one becomes, and registration of missing fields in a commit (META-067).
 */
import { authorizeWrite } from './authorization';
import { type AppDataUpdate } from './app-data-update';
import { componentKey, findKey, SHAPES } from './collections';
import { type ComponentPermissions, encodeComponentMetadata } from './component-metadata';
import { isApplicationId } from './component-ids';
import { type ConversationKind } from './default-policies';
import { encodeDelta, type Mutation } from './delta';
import { type DictionaryInput, toDictionary } from './dictionary';
import { GroupView } from './group-view';
import { type InboxIdInput, parseInboxId } from './inbox-id';
import { registryEntryProblem } from './registry-rules';
import { ConversationType, ID, TYPE_LAYOUTS } from './well-known';

export interface FieldDefinition {
  readonly id: number;
  readonly name: string;
  readonly componentType: number;
  readonly permissions: ComponentPermissions;
  readonly externalCommitterPermissions?: ComponentPermissions;
  readonly inGroups: boolean;
  readonly inDms: boolean;
}

/** The registry entry bytes of a definition. */
export function definitionEntry(def: FieldDefinition): Uint8Array {
  return encodeComponentMetadata({
    componentType: def.componentType,
    permissions: def.permissions,
    externalCommitterPermissions: def.externalCommitterPermissions,
  });
}

/**
 * Eligible when flagged for the conversation kind (never a sync group), in the application range, of a type this
 * client supports, and with policies this client supports (the entry passes META-014 and PERM-017).
 */
export function isEligible(def: FieldDefinition, kind: ConversationKind): boolean {
  if (kind === 'sync') return false;
  if (kind === 'group' ? !def.inGroups : !def.inDms) return false;
  if (!isApplicationId(def.id) || TYPE_LAYOUTS[def.componentType] === undefined) return false;
  return registryEntryProblem(def.id, definitionEntry(def)) === undefined;
}

export function conversationKindOf(type: number | undefined): ConversationKind | undefined {
  return type === ConversationType.GROUP ? 'group' : type === ConversationType.DM ? 'dm' : type === ConversationType.SYNC ? 'sync' : undefined;
}

/**
 * META-067: the registry Update a commit by `actor` must carry so that every eligible definition whose id has no
 * raw key in the committed registry gets one, or `undefined` when nothing is missing, the actor lacks registry
 * authority, or the registry cannot be read. Present keys are never overwritten, even unreadable ones. The
 * result only joins a commit being built; it never justifies a commit of its own.
 */
export function missingFieldRegistrations(
  dictionary: DictionaryInput,
  definitions: readonly FieldDefinition[],
  actor: InboxIdInput,
  options: { external?: boolean } = {},
): AppDataUpdate | undefined {
  const view = new GroupView(toDictionary(dictionary));
  const kind = conversationKindOf(view.conversationType());
  const registry = view.registry();
  if (!kind || !registry) return undefined;
  const writer = { actor: parseInboxId(actor, 'actor'), external: options.external === true };
  const seen = new Set<number>();
  const inserts: Mutation[] = [];
  for (const def of definitions) {
    if (seen.has(def.id) || !isEligible(def, kind)) continue;
    seen.add(def.id);
    if (findKey(registry, componentKey(def.id)) >= 0) continue;
    if (!authorizeWrite(view, ID.COMPONENT_REGISTRY, 'insert', writer, def.id).ok) continue;
    inserts.push({ type: 'insert', key: componentKey(def.id), value: definitionEntry(def) });
  }
  if (inserts.length === 0) return undefined;
  return { componentId: ID.COMPONENT_REGISTRY, op: 'update', update: encodeDelta(inserts, SHAPES.registry) };
}
