/**
 * The optional state file: inboxes, device cursors, read watermarks, last-seen times and deferred signals, so that a
 * restarted hub behaves like the real one's durable store. Written atomically (temporary file, then rename) when
 * something changed, and once more on stop. The directory (users, chats) is not part of it: the config file is.
 */
import fs from 'node:fs';
import type { HubContext } from './context';
import { DevHubConfigError } from './errors';
import type { InboxSnapshot } from './inbox';
import type { Watermark } from './read-watermarks';

const FORMAT = 'clawling-devhub-state';

interface StateFile {
  format: typeof FORMAT;
  version: 1;
  saved_at: number;
  inbox: InboxSnapshot;
  watermarks: Record<string, Record<string, Watermark>>;
  last_seen: Record<string, number>;
  deferred_notify: Record<string, string[]>;
}

export function loadState(ctx: HubContext, file: string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new DevHubConfigError('DEVHUB_STATE_UNREADABLE', `cannot read state file '${file}': ${(err as Error).message}`);
  }
  let state: StateFile;
  try {
    state = JSON.parse(text) as StateFile;
  } catch {
    throw new DevHubConfigError('DEVHUB_STATE_INVALID', `state file '${file}' is not JSON`);
  }
  if (state?.format !== FORMAT || state.version !== 1) {
    throw new DevHubConfigError('DEVHUB_STATE_INVALID', `state file '${file}' is not a dev hub state file (version 1)`);
  }
  ctx.inbox.restore(state.inbox);
  ctx.watermarks.restore(state.watermarks);
  ctx.presence.restore(state.last_seen);
  ctx.deferredNotify.restore(state.deferred_notify);
}

export function saveState(ctx: HubContext, file: string): void {
  const state: StateFile = {
    format: FORMAT,
    version: 1,
    saved_at: ctx.now(),
    inbox: ctx.inbox.snapshot(),
    watermarks: ctx.watermarks.snapshot(),
    last_seen: ctx.presence.snapshot(),
    deferred_notify: ctx.deferredNotify.snapshot(),
  };
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, file);
}

/** Saves whenever the inbox or the watermarks moved since the last save; returns the stop function. */
export function autosave(ctx: HubContext, file: string, intervalMs: number): () => void {
  let saved = -1;
  const revision = (): number => ctx.inbox.revision * 1_000_003 + ctx.watermarks.revision;
  const timer = setInterval(() => {
    if (revision() === saved) return;
    try {
      saveState(ctx, file);
      saved = revision();
    } catch (err) {
      ctx.log('error', 'state file not written', { file, error: (err as Error).message });
    }
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    saveState(ctx, file);
  };
}
