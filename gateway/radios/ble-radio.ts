/**
 * The BLE radio: the gateway as a GATT central on one HCI adapter, through `@stoprocent/noble`.
 *
 * - Scans for the mesh service UUID with duplicates allowed, so a peer that went away is seen again when it
 *   advertises again, and signal strength stays current.
 * - Connects to peers one at a time (noble's HCI binding serialises LE connections anyway, and one pending attempt
 *   keeps the connect timeout meaningful), best signal first, up to `max_peers`; `BlePeerLink` runs the handshake
 *   and the paced writes.
 * - After a loss or a failed attempt, a peer is retried with exponential backoff, on its next advertisement once
 *   the delay has passed; a peer refused for its identity waits the longest delay.
 * - The HCI binding stops scanning to open a connection and does not resume it: scanning is restarted after every
 *   attempt, and a housekeeping timer restarts it whenever it has stopped without us asking.
 * - With no package, no adapter or no permission, the radio reports `unsupported` (or `error` with the setcap hint)
 *   and the gateway keeps its other radios; an adapter that powers off makes it `degraded` until it is back.
 *
 * The GATT *server* half (phones that connect to the gateway as centrals) is not here: see docs/radios.md.
 */
import { Backoff } from './backoff';
import { BleHandshakeError, type BlePeerIdentity, BlePeerLink } from './ble-peer-link';
import { detachNobleSignalHandlers, loadNoble, type NobleFactory, type NobleLike, type NoblePeripheral, nobleUuid } from './ble-noble';
import { FragmentLink } from './fragment-link';
import { RadioBase, type RadioBaseOptions } from './radio-base';
import { normalisePeerRef, type ResolvedBleConfig } from './radio-config';
import { RadioError, type RadioPeer } from './radio';
import { fragmentSizeForAttMtu } from '../../lib/mesh/ble-fragment';
import { WIRE_V1_MAGIC } from '../../lib/mesh/wire-v1';

export interface BleRadioDeps {
  /** Default: the real noble on the configured adapter. */
  noble?: NobleFactory;
  random?: () => number;
}

/** A peer not advertised for this long is forgotten (it leaves `peers()`). */
const FORGET_AFTER_MS = 10 * 60_000;
/** Only connect to a peer whose advertisement is at most this old: an older one may be long gone. */
const FRESH_ADVERTISEMENT_MS = 10_000;
/** A link that stayed up this long resets its peer's backoff when it drops. */
const STABLE_LINK_MS = 60_000;
/** RSSI changes smaller than this are not worth an `updated` event … */
const RSSI_STEP_DBM = 4;
/** … unless the last one is this old. */
const RSSI_REFRESH_MS = 30_000;
/** How long open() waits for the adapter's first state. */
const ADAPTER_STATE_WAIT_MS = 5_000;

interface Candidate {
  peripheral: NoblePeripheral;
  seenAt: number;
  rssi: number;
  phase: 'idle' | 'connecting' | 'connected';
  nextAttemptAt: number;
  backoff: Backoff;
  link?: BlePeerLink;
  connectedAt?: number;
  rssiReportedAt: number;
}

export class BleRadio extends RadioBase {
  readonly #config: ResolvedBleConfig;
  readonly #deps: BleRadioDeps;
  readonly #candidates = new Map<string, Candidate>();
  readonly #serviceUuid: string;
  #noble: NobleLike | undefined;
  #adapterState = 'unknown';
  #scanning = false;
  #scanStarting = false;
  #connecting = false;
  #housekeeping: unknown;
  #stopping = false;
  /** Until then, advertisements are collected but no connection is chosen. */
  #collectUntil = 0;
  #collectTimer: unknown;

  constructor(config: ResolvedBleConfig, base: RadioBaseOptions, deps: BleRadioDeps = {}) {
    super(config.id, 'ble', base);
    this.#config = config;
    this.#deps = deps;
    this.#serviceUuid = nobleUuid(config.serviceUuid);
  }

  /** Whether noble is scanning now (for status pages and tests). */
  get scanning(): boolean {
    return this.#scanning;
  }

  protected override maxFrameBytes(peer: RadioPeer): number {
    const link = this.#candidates.get(peer.id)?.link;
    return FragmentLink.maxFrameBytes(link?.fragmentSize ?? fragmentSizeForAttMtu(undefined));
  }

  protected async doOpen(): Promise<void> {
    const noble = (this.#deps.noble ?? loadNoble)({ adapter: this.#config.adapter });
    this.#noble = noble;
    // noble prints its warnings on the console; they belong in the gateway's log.
    noble.removeAllListeners('warning');
    noble.on('warning', (message) => this.log.debug({ radio: this.id, message }, 'noble warning'));
    noble.on('scanStart', () => {
      this.#scanning = true;
      this.#openDiscoveryWindow();
      this.#refreshState();
    });
    noble.on('scanStop', () => {
      this.#scanning = false;
      this.#refreshState();
      // Restart at once unless a connection is being set up (HCI stopped the scan for it and resumes nothing).
      this.#ensureScanning();
    });
    noble.on('discover', (p) => this.#onDiscover(p));
    const first = new Promise<void>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        if (this.#adapterState === 'unknown') this.setState('degraded', `hci${this.#config.adapter}: adapter reported no state yet`);
        resolve();
      }, ADAPTER_STATE_WAIT_MS);
      noble.on('stateChange', (state) => {
        detachNobleSignalHandlers(noble);
        this.#onAdapterState(state);
        this.clock.clearTimeout(timer);
        resolve();
      });
    });
    await first;
    this.#armHousekeeping();
  }

  protected async doClose(): Promise<void> {
    this.#stopping = true;
    if (this.#housekeeping !== undefined) this.clock.clearTimeout(this.#housekeeping);
    if (this.#collectTimer !== undefined) this.clock.clearTimeout(this.#collectTimer);
    const noble = this.#noble;
    const links = [...this.#candidates.values()].flatMap((c) => (c.link === undefined ? [] : [c.link]));
    await Promise.all(links.map((link) => link.close()));
    this.#candidates.clear();
    if (noble !== undefined) {
      if (this.#scanning) await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, 1_000);
        noble.stopScanning(() => {
          this.clock.clearTimeout(timer);
          resolve();
        });
      });
      noble.removeAllListeners();
      noble.stop();
    }
  }

  protected async writeFrame(peerId: string, frame: Uint8Array): Promise<void> {
    const link = this.#candidates.get(peerId)?.link;
    if (link === undefined || !link.connected) {
      throw new RadioError('PEER_LOST', `BLE peer ${peerId} is not connected`, { radioId: this.id, peerId });
    }
    await link.write(frame);
  }

  #onAdapterState(state: string): void {
    const previous = this.#adapterState;
    this.#adapterState = state;
    const hci = `hci${this.#config.adapter}`;
    if (previous === 'unsupported') return;
    switch (state) {
      case 'poweredOn':
        this.#refreshState();
        this.#ensureScanning();
        return;
      case 'unsupported':
        this.setState('unsupported', `${hci}: no usable Bluetooth LE adapter (missing, or BLE not supported)`);
        // noble's HCI binding keeps polling a missing adapter every second; stop it (restart the gateway after
        // attaching an adapter).
        setImmediate(() => this.#noble?.stop());
        return;
      case 'unauthorized':
        this.setState('error', `${hci}: no permission for raw HCI; grant it with: sudo setcap cap_net_raw,cap_net_admin+eip $(readlink -f $(which node))`);
        return;
      default:
        this.#scanning = false;
        this.setState('degraded', `${hci}: adapter ${state}`);
    }
  }

  #refreshState(): void {
    if (this.#stopping || this.#adapterState !== 'poweredOn') return;
    const hci = `hci${this.#config.adapter}`;
    if (this.#scanning || this.#connecting || this.#connectedCount() > 0) this.setState('ready', hci);
  }

  #ensureScanning(): void {
    const noble = this.#noble;
    if (noble === undefined || this.#stopping || this.#adapterState !== 'poweredOn') return;
    if (this.#scanning || this.#scanStarting || this.#connecting) return;
    this.#scanStarting = true;
    noble.startScanning([this.#serviceUuid], true, (err) => {
      this.#scanStarting = false;
      if (err) {
        this.log.warn({ radio: this.id, err: err.message }, 'BLE scan did not start');
        if (this.#connectedCount() === 0) this.setState('degraded', `hci${this.#config.adapter}: scan failed: ${err.message}`);
        return;
      }
      this.#scanning = true;
      this.#refreshState();
    });
  }

  /** Let a fresh scan hear everyone in range before choosing, so the strongest peer is connected first. */
  #openDiscoveryWindow(): void {
    const window = this.#config.discoveryWindowMs;
    if (window === 0) return;
    this.#collectUntil = this.clock.now() + window;
    if (this.#collectTimer !== undefined) this.clock.clearTimeout(this.#collectTimer);
    this.#collectTimer = this.clock.setTimeout(() => {
      this.#collectTimer = undefined;
      this.#maybeConnect();
    }, window);
  }

  #onDiscover(p: NoblePeripheral): void {
    if (this.#stopping) return;
    const now = this.clock.now();
    let c = this.#candidates.get(p.id);
    if (c === undefined) {
      c = {
        peripheral: p,
        seenAt: now,
        rssi: p.rssi,
        phase: 'idle',
        nextAttemptAt: now,
        backoff: new Backoff({ initialMs: this.#config.reconnect.initialMs, maxMs: this.#config.reconnect.maxMs, random: this.#deps.random }),
        rssiReportedAt: now,
      };
      this.#candidates.set(p.id, c);
      this.log.debug({ radio: this.id, peer: p.id, rssi: p.rssi }, 'BLE mesh peer seen');
    }
    c.peripheral = p;
    c.seenAt = now;
    c.rssi = p.rssi;
    if (c.phase === 'connected' && (Math.abs((this.peer(p.id)?.rssi ?? p.rssi) - p.rssi) >= RSSI_STEP_DBM || now - c.rssiReportedAt >= RSSI_REFRESH_MS)) {
      c.rssiReportedAt = now;
      this.peerUpdate(p.id, { rssi: p.rssi });
    }
    this.#maybeConnect();
  }

  #maybeConnect(): void {
    if (this.#connecting || this.#stopping || this.#adapterState !== 'poweredOn') return;
    if (this.#connectedCount() >= this.#config.maxPeers) return;
    const now = this.clock.now();
    if (now < this.#collectUntil) return;
    const ids = this.#config.allowPeers.filter((ref) => !ref.startsWith('off1'));
    const onlyIds = ids.length > 0 && ids.length === this.#config.allowPeers.length;
    let best: Candidate | undefined;
    for (const c of this.#candidates.values()) {
      if (c.phase !== 'idle' || c.nextAttemptAt > now || now - c.seenAt > FRESH_ADVERTISEMENT_MS) continue;
      if (!c.peripheral.connectable) continue;
      // With only peripheral ids listed the choice can be made before connecting; addresses need the handshake.
      if (onlyIds && !ids.includes(normalisePeerRef(c.peripheral.id))) continue;
      if (best === undefined || c.rssi > best.rssi) best = c;
    }
    if (best !== undefined) void this.#connect(best);
  }

  async #connect(c: Candidate): Promise<void> {
    this.#connecting = true;
    c.phase = 'connecting';
    const id = c.peripheral.id;
    const link = new BlePeerLink({
      peripheral: c.peripheral,
      config: this.#config,
      clock: this.clock,
      log: this.log,
      radioId: this.id,
      onFrame: (frame) => this.#onFrame(id, frame, c.rssi),
      onDrop: (reason, details) => this.countDrop(reason, { peerId: id, ...details }),
      onMtu: (attMtu) => this.peerUpdate(id, { mtu: attMtu - 3 }),
      onDisconnect: (reason) => this.#onLinkLost(c, reason),
      accept: (identity) => this.#allowed(id, identity),
    });
    c.link = link;
    this.log.debug({ radio: this.id, peer: id, rssi: c.rssi }, 'BLE connecting');
    try {
      const identity = await link.open();
      if (this.#stopping) {
        await link.close();
        return;
      }
      c.phase = 'connected';
      c.connectedAt = this.clock.now();
      c.rssiReportedAt = c.connectedAt;
      const info: Omit<RadioPeer, 'connected' | 'queued'> = { id, wireVersions: [], rssi: c.rssi };
      if (identity.address !== undefined) info.address = identity.address;
      if (identity.attMtu !== null) info.mtu = identity.attMtu - 3;
      this.log.info({ radio: this.id, peer: id, address: identity.address, mtu: info.mtu }, 'BLE peer connected');
      this.peerUp(info);
    } catch (err) {
      c.link = undefined;
      c.phase = 'idle';
      const reason = err instanceof BleHandshakeError ? err.reason : 'CONNECT_FAILED';
      const identityRefused = reason.startsWith('IDENTITY_') || reason === 'NOT_ALLOWED';
      // A peer that failed its identity will fail it again: do not hammer it.
      const delay = identityRefused ? this.#config.reconnect.maxMs : c.backoff.next();
      c.nextAttemptAt = this.clock.now() + delay;
      this.countDrop(`ble_${reason.toLowerCase()}`, { peerId: id });
      (identityRefused ? this.log.warn : this.log.debug).call(this.log, { radio: this.id, peer: id, reason, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'BLE peer refused or unreachable');
    } finally {
      this.#connecting = false;
      this.#refreshState();
      this.#ensureScanning();
      this.#maybeConnect();
    }
  }

  #onFrame(peerId: string, frame: Uint8Array, rssi: number): void {
    // BLE has no capability exchange below the message layer (wire versions travel in `__MLS_KEY_PKG__` bodies,
    // which the router reads). A peer that sends binary v1 decodes it too: reference receivers accept both
    // encodings unconditionally. So the first binary frame marks the link binary-capable.
    if (frame[0] === WIRE_V1_MAGIC && this.peer(peerId)?.wireVersions.includes(1) === false) {
      this.peerUpdate(peerId, { wireVersions: [1] });
    }
    this.deliver(peerId, frame, rssi);
  }

  #allowed(peripheralId: string, identity: BlePeerIdentity): boolean {
    const allow = this.#config.allowPeers;
    if (allow.length === 0) return true;
    return allow.includes(normalisePeerRef(peripheralId)) || (identity.address !== undefined && allow.includes(identity.address));
  }

  #onLinkLost(c: Candidate, reason: string): void {
    const id = c.peripheral.id;
    const now = this.clock.now();
    if (c.connectedAt !== undefined && now - c.connectedAt >= STABLE_LINK_MS) c.backoff.reset();
    c.link = undefined;
    c.phase = 'idle';
    c.connectedAt = undefined;
    c.nextAttemptAt = now + c.backoff.next();
    this.log.info({ radio: this.id, peer: id, reason, retryAt: c.nextAttemptAt }, 'BLE peer lost');
    this.peerDown(id, reason);
    this.#ensureScanning();
    this.#maybeConnect();
  }

  #armHousekeeping(): void {
    if (this.#stopping) return;
    this.#housekeeping = this.clock.setTimeout(() => {
      this.#houseKeep();
      this.#armHousekeeping();
    }, this.#config.scanRestartMs);
  }

  #houseKeep(): void {
    const now = this.clock.now();
    for (const [id, c] of this.#candidates) {
      c.link?.sweep();
      if (c.phase === 'idle' && now - c.seenAt > FORGET_AFTER_MS) {
        this.#candidates.delete(id);
        this.peerDown(id, 'not seen for 10 minutes', true);
      }
    }
    if (!this.#scanning && !this.#connecting && this.#adapterState === 'poweredOn') {
      this.log.debug({ radio: this.id }, 'BLE scan found stopped; restarting');
      this.#ensureScanning();
    }
    this.#maybeConnect();
  }

  #connectedCount(): number {
    let n = 0;
    for (const c of this.#candidates.values()) if (c.phase === 'connected') n += 1;
    return n;
  }
}
