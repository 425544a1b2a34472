/**
 * The `hub:` section turned into what the bridge runs on: the token read (from the setting, `CLAWLING_HUB_TOKEN`
 * through the schema, or `token_file`), the media base derived from the WebSocket URL, and the rules checked with the
 * mesh identifier rule. Every problem names its path (`hub.mesh_to_hub[0].recipient`), all of them at once, and none
 * quotes the token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { identifierProblem } from '../../../lib/mesh/identifier';
import type { ConfigProblem } from '../../../lib/schema';
import type { HubSettings, HubToMeshRuleSettings, MeshToHubRuleSettings, UnverifiedSenderSetting } from './config-schema';
import { HubBridgeError } from './errors';

export interface MeshToHubRule {
  chatId: string;
  /** Empty: any app id. */
  appIds: ReadonlySet<string>;
  /** `gateway`, `*`, or one recipient id. */
  recipient: string;
  sender: string | undefined;
  label: 'name' | 'none';
  unverified: UnverifiedSenderSetting;
}

export interface HubToMeshRule {
  chatId: string;
  recipient: string | undefined;
  appId: string;
  repliesToSender: boolean;
}

export interface BridgeConfig {
  url: string;
  token: string;
  userId: string;
  deviceId: string | undefined;
  mediaUrl: string;
  reliability: 'v2' | 'v1';
  ackTimeoutMs: number;
  sendExpiryMs: number;
  maxInFlight: number;
  reconnect: { initialMs: number; maxMs: number };
  outboxCapacity: number;
  senderNames: ReadonlyMap<string, string>;
  meshToHub: MeshToHubRule[];
  hubToMesh: HubToMeshRule[];
  files: HubSettings['files'];
  toMesh: HubSettings['to_mesh'];
}

/** `ws://host:port/ws` → `http://host:port`, `wss://…` → `https://…` (the dev hub and §1's default layout). */
export function mediaBaseFor(wsUrl: string): string {
  const u = new URL(wsUrl);
  return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}`;
}

function readToken(settings: HubSettings, problems: ConfigProblem[], cwd: string): string | undefined {
  if (settings.token_file !== null) {
    const file = path.resolve(cwd, settings.token_file);
    try {
      const token = fs.readFileSync(file, 'utf8').split(/\r?\n/)[0]?.trim() ?? '';
      if (token === '') problems.push({ path: 'hub.token_file', problem: 'the file is empty' });
      else return token;
    } catch (err) {
      problems.push({ path: 'hub.token_file', problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    }
    return undefined;
  }
  if (settings.token === null || settings.token === '') {
    problems.push({ path: 'hub.token', problem: 'is required (or hub.token_file, or the CLAWLING_HUB_TOKEN variable)' });
    return undefined;
  }
  return settings.token;
}

function identifier(value: string, where: string, problems: ConfigProblem[]): void {
  const problem = identifierProblem(value);
  if (problem !== undefined) problems.push({ path: where, problem: `is not a valid mesh identifier (${problem})` });
}

function meshToHub(rule: MeshToHubRuleSettings, i: number, problems: ConfigProblem[]): MeshToHubRule {
  const where = `hub.mesh_to_hub[${i}]`;
  const appIds = rule.app_id === null ? [] : Array.isArray(rule.app_id) ? rule.app_id : [rule.app_id];
  appIds.forEach((a, j) => identifier(a, `${where}.app_id${Array.isArray(rule.app_id) ? `[${j}]` : ''}`, problems));
  if (rule.recipient !== 'gateway' && rule.recipient !== '*') identifier(rule.recipient, `${where}.recipient`, problems);
  if (rule.sender !== null) identifier(rule.sender, `${where}.sender`, problems);
  return { chatId: rule.chat_id, appIds: new Set(appIds), recipient: rule.recipient, sender: rule.sender ?? undefined, label: rule.label, unverified: rule.unverified };
}

function hubToMesh(rule: HubToMeshRuleSettings, i: number, gatewayAppId: string, problems: ConfigProblem[]): HubToMeshRule {
  const where = `hub.hub_to_mesh[${i}]`;
  if (rule.recipient !== null) identifier(rule.recipient, `${where}.recipient`, problems);
  if (rule.app_id !== null) identifier(rule.app_id, `${where}.app_id`, problems);
  if (rule.recipient === null && !rule.replies_to_sender) {
    problems.push({ path: `${where}.recipient`, problem: 'is required when replies_to_sender is false (nothing could be sent)' });
  }
  return { chatId: rule.chat_id, recipient: rule.recipient ?? undefined, appId: rule.app_id ?? gatewayAppId, repliesToSender: rule.replies_to_sender };
}

/** Throws `HubBridgeError` `HUB_CONFIG_INVALID` with `details.problems` (`ConfigProblem`s, one per path). */
export function resolveBridgeConfig(settings: HubSettings, gatewayAppId: string, cwd = process.cwd()): BridgeConfig {
  const problems: ConfigProblem[] = [];
  const token = readToken(settings, problems, cwd);
  if (settings.user_id === null) problems.push({ path: 'hub.user_id', problem: 'is required (the hub user id of the bridge account)' });
  const meshRules = settings.mesh_to_hub.map((r, i) => meshToHub(r, i, problems));
  const hubRules = settings.hub_to_mesh.map((r, i) => hubToMesh(r, i, gatewayAppId, problems));
  for (const address of Object.keys(settings.sender_names)) identifier(address, `hub.sender_names.${address}`, problems);
  if (settings.reconnect_max_ms < settings.reconnect_min_ms) problems.push({ path: 'hub.reconnect_max_ms', problem: 'must not be below hub.reconnect_min_ms' });
  if (settings.to_mesh.retry_max_ms < settings.to_mesh.retry_min_ms) problems.push({ path: 'hub.to_mesh.retry_max_ms', problem: 'must not be below hub.to_mesh.retry_min_ms' });
  let mediaUrl = settings.media_url ?? '';
  try {
    if (mediaUrl === '') mediaUrl = mediaBaseFor(settings.url);
  } catch {
    problems.push({ path: 'hub.url', problem: 'is not a valid URL' });
  }
  if (problems.length > 0 || token === undefined || settings.user_id === null) {
    throw new HubBridgeError('HUB_CONFIG_INVALID', `invalid hub bridge configuration:\n${problems.map((p) => `  ${p.path}: ${p.problem}`).join('\n')}`, { problems });
  }
  return {
    url: settings.url,
    token,
    userId: settings.user_id,
    deviceId: settings.device_id ?? undefined,
    mediaUrl: mediaUrl.replace(/\/+$/, ''),
    reliability: settings.reliability,
    ackTimeoutMs: settings.ack_timeout_ms,
    sendExpiryMs: settings.send_expiry_ms,
    maxInFlight: settings.max_in_flight,
    reconnect: { initialMs: settings.reconnect_min_ms, maxMs: settings.reconnect_max_ms },
    outboxCapacity: settings.outbox_max_entries,
    senderNames: new Map(Object.entries(settings.sender_names)),
    meshToHub: meshRules,
    hubToMesh: hubRules,
    files: settings.files,
    toMesh: settings.to_mesh,
  };
}
