/**
 * What the hub-config editor fields mean for the client: seconds become milliseconds, empty fields take their
 * defaults, and the durable store gets its place (one file per config node under the state folder). The client
 * checks the values themselves (a bad URL or reliability mode is its `BAD_OPTIONS`), so nothing is judged twice.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { NodeDef } from 'node-red';
import { toCrockfordBase32 } from '../../lib/bytes';
import type { HubClientOptions } from '../../lib/hub';
import { MEMORY, storeFileFor } from '../../lib/store';

/** The hub-config node as the editor saves it (numbers arrive as strings or numbers). */
export interface HubConfigDef extends NodeDef {
  url?: string;
  mediaUrl?: string;
  userId?: string;
  deviceId?: string;
  reliability?: string;
  chatIdRule?: string;
  /** Seconds. */
  reconnectMin?: string | number;
  reconnectMax?: string | number;
  /** Seconds; 0 or empty keeps trying forever. */
  sendExpiry?: string | number;
  /** Keep the outbox, the inbox table and the cursors in a file (default true). */
  persist?: boolean;
  stateDir?: string;
}

export interface HubConfigCredentials {
  token?: string;
}

/** Where the node runs: what the defaults are derived from. */
export interface HubConfigEnvironment {
  userDir: string | undefined;
  homeDir: string;
  hostname: string;
}

export interface ResolvedHubConfig {
  client: Omit<HubClientOptions, 'store' | 'logger'>;
  /** A sqlite file path, or `:memory:`. */
  storeLocation: string;
  /** The device id to use if the store turns out to be a memory one (no persistence, or no sqlite driver). */
  fallbackDeviceId: string;
  mediaUrl: string;
}

export const STATE_FOLDER = 'clawling-hub';
const DEFAULT_RECONNECT_MIN_S = 1;
const DEFAULT_RECONNECT_MAX_S = 30;

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** Empty → the default; anything else is handed on as milliseconds for the client to judge (NaN included). */
function millis(value: string | number | undefined, fallbackSeconds: number): number {
  if (value === undefined || value === '') return fallbackSeconds * 1000;
  return Math.round(Number(value) * 1000);
}

/** The media service's base when the field is empty: the WebSocket's own origin (the dev hub serves both there). */
export function mediaUrlFor(wsUrl: string): string {
  try {
    const u = new URL(wsUrl);
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') return '';
    return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}`;
  } catch {
    return '';
  }
}

/**
 * A device id that stays the same for this config node on this installation without any file: digest of the
 * host name, the user directory and the node id. Used only when the store is a memory one; a file store keeps
 * the client's own minted id instead, which survives a change of host name.
 */
export function derivedDeviceId(env: HubConfigEnvironment, nodeId: string): string {
  const digest = createHash('sha256').update(`${env.hostname}\0${env.userDir ?? env.homeDir}\0${nodeId}`, 'utf8').digest();
  return `dev-${toCrockfordBase32(digest.subarray(0, 16))}`;
}

export function defaultStateDir(env: HubConfigEnvironment): string {
  return path.join(env.userDir ?? path.join(env.homeDir, '.node-red'), STATE_FOLDER);
}

export function resolveHubConfig(def: HubConfigDef, credentials: HubConfigCredentials | undefined, env: HubConfigEnvironment): ResolvedHubConfig {
  const url = text(def.url);
  const initialMs = millis(def.reconnectMin, DEFAULT_RECONNECT_MIN_S);
  const maxMs = millis(def.reconnectMax, DEFAULT_RECONNECT_MAX_S);
  const deviceId = text(def.deviceId);
  const stateDir = text(def.stateDir) || defaultStateDir(env);
  const persist = def.persist !== false;
  return {
    client: {
      url,
      token: credentials?.token ?? '',
      userId: text(def.userId),
      deviceId: deviceId === '' ? undefined : deviceId,
      reliability: (text(def.reliability) || 'v2') as HubClientOptions['reliability'],
      chatIdRule: (text(def.chatIdRule) || 'any') as HubClientOptions['chatIdRule'],
      // The takeover floor may not exceed the cap; a user who lowers the cap lowers the floor with it.
      backoff: { initialMs, maxMs, takeoverFloorMs: Number.isFinite(maxMs) ? Math.min(5000, maxMs) : undefined },
      sendExpiryMs: millis(def.sendExpiry, 0),
    },
    storeLocation: persist ? storeFileFor(stateDir, def.id) : MEMORY,
    fallbackDeviceId: deviceId || derivedDeviceId(env, def.id),
    mediaUrl: text(def.mediaUrl).replace(/\/+$/, '') || mediaUrlFor(url),
  };
}
