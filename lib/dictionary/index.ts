/**
 * `@clawling/node-red-mesh/dictionary`: the MLS group app-data dictionary (group-metadata-dictionary.md).
 *
 * The one entry most callers need is `applyCommit(preCommitDictionary, proposals, actor)`; creation, Welcome
 * checks, the typed read/write API, disappearing-message expiry and the version floor sit beside it, and the
 * codecs are exported for tools that inspect bytes.
 */
export { applyCommit, type ApplyOptions, type ApplyResult, type AppliedCommit, type RejectedCommit, type ProposalInput } from './apply-commit';
export { type AppDataUpdate, decodeAppDataUpdate, encodeAppDataUpdate, proposalListProblem } from './app-data-update';
export { authorizeWrite, type AuthorizationResult, type Writer } from './authorization';
export { definitionEntry, type FieldDefinition, isEligible, missingFieldRegistrations } from './catalogue';
export { type MetadataFieldChange, metadataFieldChanges } from './changes';
export {
  type CollectionShape,
  componentKey,
  componentIdOfKey,
  decodeSnapshot,
  encodeSnapshot,
  type Entry,
  SHAPES,
} from './collections';
export {
  APP_DATA_DICTIONARY_EXTENSION_TYPE,
  APP_DATA_UPDATE_PROPOSAL_TYPE,
  COMPONENT_RANGES,
  componentRange,
  formatComponentId,
  isApplicationId,
  isImmutable,
  isReserved,
} from './component-ids';
export {
  BasePolicy,
  type ComponentMetadata,
  type ComponentPermissions,
  ComponentType,
  decodeComponentMetadata,
  encodeComponentMetadata,
  type MetadataPolicy,
} from './component-metadata';
export { createConversation, type CreateConversationOptions, type CreatedConversation, DEFAULT_MIN_SUPPORTED_PROTOCOL_VERSION, requiredCapabilities } from './create';
export { type ConversationKind, coreRegistryEntries } from './default-policies';
export { applyDelta, decodeDelta, encodeDelta, hashKey, type MapMutation, type Mutation, type SetMutation } from './delta';
export { decodeDictionary, type Dictionary, type DictionaryInput, encodeDictionary } from './dictionary';
export {
  computeExpiry,
  type DisappearingSettings,
  isExpired,
  messagesToDelete,
  prepareDisappearingSettings,
  readDisappearingSettings,
  visibleMessages,
} from './disappearing';
export { COMMIT_REJECTED, CommitRejectedError, DictionaryError, WELCOME_REJECTED, WelcomeRejectedError } from './errors';
export { type FieldValue, type Scalar } from './field-values';
export { describeFields, type FieldDescription, type FieldRef, type FieldShape, findField } from './fields';
export { decodeInboxId, encodeInboxId, type InboxIdInput, inboxIdToText, parseInboxId } from './inbox-id';
export { INT64_MAX, INT64_MIN } from './int64';
export { dictionaryToJson, parseDictionaryInput } from './json-form';
export { isOperationName, OPERATIONS, type OperationName, type OperationResult, runOperation } from './operations';
export { evaluatePolicy, isValidPolicy } from './policy';
export { readField, readFields, readGroupMetadata, readMapKey } from './read';
export { compareSemVer, parseNormalVersion, parseSemVer } from './semver';
export { prepareUserDataWrite, readUserData } from './user-data';
export { readVersionFloor, type VersionFloor } from './version-floor';
export { ConversationType, ID, WELL_KNOWN_COMPONENTS, type WellKnownComponent, wellKnown } from './well-known';
export { validateWelcome, type WelcomeResult } from './welcome';
export { type FieldWrite, prepareFieldWrite, type PreparedWrite } from './write';
export { decodeMembershipEntry, decodeOneshotMessage, encodeMembershipEntry, encodeOneshotMessage } from './xmtp-messages';
