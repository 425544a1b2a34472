/**
 * Turns user options (a config file or a `startDevHub` argument) into a complete, validated configuration:
 * schema defaults filled in, every error reported by path, and the cross-field rules the schema cannot state
 * (a token names one user, chat members are known users).
 */
import fs from 'node:fs';
import type { FromSchema } from 'json-schema-to-ts';
import path from 'node:path';
import YAML from 'yaml';
import { validateAgainst } from '../lib/schema';
import { CONFIG_SCHEMA } from './config-schema';
import { DevHubConfigError } from './errors';
import type { DevHubOptions, DevHubUserConfig } from './options';

/** The configuration after validation (every default filled in), derived from the schema so it is written once. */
export type ResolvedConfig = FromSchema<typeof CONFIG_SCHEMA>;

export function resolveOptions(options: DevHubOptions): ResolvedConfig {
  const config = structuredClone(options ?? {}) as Record<string, unknown>;
  const problems = validateAgainst(CONFIG_SCHEMA, config);
  if (problems.length > 0) {
    const errors = problems.map((p) => `${p.path}: ${p.problem}`);
    throw new DevHubConfigError('DEVHUB_CONFIG_INVALID', `invalid dev hub configuration: ${errors.join('; ')}`, { errors });
  }
  const resolved = config as unknown as ResolvedConfig;
  checkDirectory(resolved);
  return resolved;
}

function checkDirectory(config: ResolvedConfig): void {
  const errors: string[] = [];
  const users = new Set<string>();
  const tokens = new Map<string, string>();
  config.users.forEach((user, i) => {
    if (users.has(user.id)) errors.push(`users[${i}].id: '${user.id}' appears twice`);
    users.add(user.id);
    for (const token of tokensOf(user)) {
      // The message names the users, never the token.
      const owner = tokens.get(token);
      if (owner !== undefined && owner !== user.id) errors.push(`users[${i}]: shares a token with user '${owner}'`);
      tokens.set(token, user.id);
    }
  });
  const chats = new Set<string>();
  config.chats.forEach((chat, i) => {
    if (chats.has(chat.id)) errors.push(`chats[${i}].id: '${chat.id}' appears twice`);
    chats.add(chat.id);
    chat.members.forEach((member, j) => {
      if (!users.has(member)) errors.push(`chats[${i}].members[${j}]: '${member}' is not a configured user`);
    });
  });
  if (errors.length > 0) {
    throw new DevHubConfigError('DEVHUB_CONFIG_INVALID', `invalid dev hub configuration: ${errors.join('; ')}`, { errors });
  }
}

export function tokensOf(user: DevHubUserConfig): string[] {
  return [...(user.token !== undefined ? [user.token] : []), ...(user.tokens ?? [])];
}

/** Reads a YAML or JSON file (YAML is a superset) into options; errors name the file, never its content. */
export function loadConfigFile(file: string): DevHubOptions {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new DevHubConfigError('DEVHUB_CONFIG_UNREADABLE', `cannot read config file '${file}': ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (err) {
    throw new DevHubConfigError('DEVHUB_CONFIG_INVALID', `config file '${file}' is not valid YAML/JSON: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DevHubConfigError('DEVHUB_CONFIG_INVALID', `config file '${file}' must hold a mapping at the top level`);
  }
  const options = parsed as DevHubOptions;
  // The certificate files sit beside the config, wherever the hub is started from.
  const tls = options.tls as Partial<Record<string, unknown>> | undefined;
  if (tls && typeof tls === 'object') {
    for (const key of ['cert_file', 'key_file']) {
      if (typeof tls[key] === 'string') tls[key] = path.resolve(path.dirname(file), tls[key] as string);
    }
  }
  return options;
}
