/**
 * Which BLE peers the gateway admits beyond a radio's `allow_peers`: the ones admitted during a pairing window, as
 * Zigbee2MQTT's "permit join" admits devices. The window is off by default; opened (from Home Assistant's switch or
 * `B/bridge/request/pairing`) it closes by itself after `gateway.pairing_window_s`. A radio whose `admission` is
 * `listed` accepts, while it is open, any peer that completes the handshake, and records it here; the record outlives
 * the window and restarts (`<state_dir>/paired-peers.json`, human-readable so a peer can be removed by hand).
 *
 * The file is written whole to a temporary name and renamed, so a power cut leaves the old list or the new one. A file
 * that cannot be read is set aside (`.unreadable`) and logged, never silently overwritten: the gateway then admits only
 * `allow_peers` until a window admits more.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Clock, TimerHandle } from '../../lib/clock';
import type { RadioLogger } from './radio';
import { writeFileAtomically } from '../../lib/write-atomically';

export const PAIRED_PEERS_FILE = 'paired-peers.json';
const FILE_VERSION = 1;

export interface PairedPeer {
  /** An `off1…` address, or a peripheral / link id when the peer gave no verified address. */
  ref: string;
  /** The radio that admitted it (every radio of the gateway honours the record). */
  radio: string;
  admitted_at: string;
}

export interface PairingState {
  open: boolean;
  /** Epoch ms when an open window closes by itself. */
  until?: number;
  /** Peers admitted by the current (or last) window. */
  admitted: PairedPeer[];
}

export interface PeerAdmissionOptions {
  stateDir: string;
  clock: Clock;
  logger: RadioLogger;
  /** How long a window stays open unless a length is given. */
  windowMs: number;
}

type Listener = (state: PairingState) => void;

export class PeerAdmission {
  readonly #file: string;
  readonly #o: PeerAdmissionOptions;
  #peers: PairedPeer[] = [];
  readonly #refs = new Set<string>();
  #until: number | undefined;
  #timer: TimerHandle | undefined;
  #admitted: PairedPeer[] = [];
  readonly #listeners = new Set<Listener>();

  constructor(options: PeerAdmissionOptions) {
    this.#o = options;
    this.#file = path.join(options.stateDir, PAIRED_PEERS_FILE);
    this.#load();
  }

  get windowMs(): number {
    return this.#o.windowMs;
  }

  /** Every peer ever admitted by a window (and not removed from the file). */
  list(): PairedPeer[] {
    return this.#peers.map((p) => ({ ...p }));
  }

  isPaired(ref: string): boolean {
    return this.#refs.has(ref);
  }

  get isOpen(): boolean {
    return this.#until !== undefined;
  }

  state(): PairingState {
    return { open: this.isOpen, ...(this.#until !== undefined ? { until: this.#until } : {}), admitted: this.#admitted.map((p) => ({ ...p })) };
  }

  /** Opens the window (or extends an open one) for `ms`, default the configured length. */
  open(ms = this.#o.windowMs, by = 'request'): PairingState {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    else this.#admitted = [];
    this.#until = this.#o.clock.now() + ms;
    this.#timer = this.#o.clock.setTimeout(() => this.close('timeout'), ms);
    this.#o.logger.warn({ pairing: true, seconds: Math.round(ms / 1000), by }, `pairing window open for ${Math.round(ms / 1000)} s: new BLE peers are admitted`);
    this.#emit();
    return this.state();
  }

  close(why: 'timeout' | 'request' | 'stop' = 'request'): PairingState {
    if (this.#until === undefined) return this.state();
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#until = undefined;
    const refs = this.#admitted.map((p) => p.ref);
    this.#o.logger.warn({ pairing: false, why, admitted: refs }, `pairing window closed (${why}); ${refs.length} peer${refs.length === 1 ? '' : 's'} admitted${refs.length > 0 ? `: ${refs.join(', ')}` : ''}`);
    this.#emit();
    return this.state();
  }

  /**
   * A peer outside every list completed its handshake: admitted (and remembered under each of `refs`) while the
   * window is open; refused otherwise. Returns whether it was admitted.
   */
  admit(radioId: string, refs: readonly (string | undefined)[]): boolean {
    if (!this.isOpen) return false;
    const at = new Date(this.#o.clock.now()).toISOString();
    const added: PairedPeer[] = [];
    for (const ref of refs) {
      if (ref === undefined || ref.length === 0 || this.#refs.has(ref)) continue;
      const peer = { ref, radio: radioId, admitted_at: at };
      this.#refs.add(ref);
      this.#peers.push(peer);
      added.push(peer);
    }
    if (added.length === 0) return true;
    this.#admitted.push(...added);
    this.#save();
    this.#o.logger.warn({ radio: radioId, admitted: added.map((p) => p.ref) }, `pairing: BLE peer ${added.map((p) => p.ref).join(' / ')} admitted`);
    this.#emit();
    return true;
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stop(): void {
    this.close('stop');
    this.#listeners.clear();
  }

  #emit(): void {
    const state = this.state();
    for (const l of this.#listeners) {
      try {
        l(state);
      } catch (err) {
        this.#o.logger.error({ err }, 'pairing listener failed');
      }
    }
  }

  #load(): void {
    let text: string;
    try {
      text = fs.readFileSync(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.#o.logger.error({ err, file: this.#file }, 'paired BLE peers unreadable; only allow_peers are admitted');
      return;
    }
    const peers = parsePairedPeers(text);
    if (peers === undefined) {
      const aside = `${this.#file}.unreadable`;
      try {
        fs.renameSync(this.#file, aside);
      } catch {
        // Left in place: the next admission would overwrite it, so none is recorded until it is fixed.
      }
      this.#o.logger.error({ file: this.#file, aside }, `paired BLE peers: ${this.#file} is not a paired-peers file; set aside as ${aside}`);
      return;
    }
    this.#peers = peers;
    for (const p of peers) this.#refs.add(p.ref);
  }

  #save(): void {
    const body = `${JSON.stringify({ version: FILE_VERSION, peers: this.#peers }, null, 2)}\n`;
    try {
      fs.mkdirSync(path.dirname(this.#file), { recursive: true });
      writeFileAtomically(this.#file, body);
    } catch (err) {
      // The peer stays admitted for this run; the log says it will not survive a restart.
      this.#o.logger.error({ err, file: this.#file }, 'paired BLE peers could not be saved; the admission lasts until the next start');
    }
  }
}

/** The file's peers, or undefined when it is not a version-1 paired-peers file. */
export function parsePairedPeers(text: string): PairedPeer[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== 'object' || (doc as { version?: unknown }).version !== FILE_VERSION) return undefined;
  const peers = (doc as { peers?: unknown }).peers;
  if (!Array.isArray(peers)) return undefined;
  const out: PairedPeer[] = [];
  for (const p of peers as unknown[]) {
    if (p === null || typeof p !== 'object') return undefined;
    const { ref, radio, admitted_at } = p as Record<string, unknown>;
    if (typeof ref !== 'string' || ref.length === 0) return undefined;
    out.push({ ref, radio: typeof radio === 'string' ? radio : '', admitted_at: typeof admitted_at === 'string' ? admitted_at : '' });
  }
  return out;
}
