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
 * The GATT *server* half (phones that connect to the gateway as centrals) is `BlePeripheral`, through
 * `@stoprocent/bleno`, on the same adapter by default. Both halves feed one peer table: a peer is one neighbour,
 * whichever links it has (docs/radios.md "One peer per device"):
 * - a central link (we connected to its advertisement) and a server link (it connected to ours) with the same
 *   link-layer address are one peer; so are links whose identity verified to the same `off1…` address;
 * - a server link learns a verified address only from a central link to the same link-layer address (the binding
 *   is remembered while the device is around); otherwise it is a peer without `address`;
 * - a frame to a peer goes over its server link once that central has subscribed (the phone has verified the
 *   gateway on that link), else over the central link.
 */
import { Backoff } from '../backoff';
import { BleHandshakeError, type BlePeerIdentity, BlePeerLink, type HandshakeFailure } from './ble-peer-link';
import { detachNobleSignalHandlers, loadNoble, type NobleFactory, type NobleLike, type NoblePeripheral, nobleUuid, recoverFromHardwareErrors } from './ble-noble';
import { loadBleno, type BlenoFactory } from './ble-bleno';
import { BlePeripheral, type PeripheralState } from './ble-peripheral';
import type { BleServerLink } from './ble-server-link';
import { HciController } from './hci-controller';
import type { HciSocketLike, UserChannelOptions } from './hci-user-channel';
import type { UartOptions } from './hci-uart';
import { BleTransportError } from './errors';
import type { BleControllerRef } from '../radio-config';
import { FragmentLink } from '../fragment-link';
import { advertisedHealth, type MeshAdvertisement, type MeshIdentity } from '../mesh-identity';
import { type PeerInfo, RadioBase, type RadioBaseOptions } from '../radio-base';
import { normalisePeerRef, type ResolvedBleConfig } from '../radio-config';
import type { PeerAdmission } from '../peer-admission';
import { RadioError, type RadioPeer, type RadioState } from '../radio';
import { FRAGMENT_HEADER_FIXED_BYTES, fragmentSizeForAttMtu } from '../../../lib/mesh/ble-fragment';
import { WIRE_V1_MAGIC } from '../../../lib/mesh/wire-v1';

export interface BleRadioDeps {
  /** Default: the real noble on the configured adapter. */
  noble?: NobleFactory;
  /** Default: the real bleno on the peripheral adapter. */
  bleno?: BlenoFactory;
  /** The gateway's key and address, served by the GATT server; without it the peripheral role is unsupported. */
  identity?: MeshIdentity;
  /** Root of sysfs, where the real bleno loader looks for the adapter. */
  sysDir?: string;
  /** The HCI user channel's socket for adapter `index` (tests: one over a virtual controller); default: the native one. */
  hciSocket?: (index: number) => HciSocketLike;
  random?: () => number;
  /** Peers admitted by pairing windows, and the window itself (`admission: listed`); without it only `allow_peers`. */
  admission?: PeerAdmission;
}

/** A peer not advertised for this long is forgotten (it leaves `peers()`). */
const FORGET_AFTER_MS = 10 * 60_000;
/** Only connect to a peer whose advertisement is at most this old: an older one may be long gone. */
const FRESH_ADVERTISEMENT_MS = 10_000;
/** How often a connected peer's IDENTITY is read again for its battery and load. */
const ADVERTISEMENT_REFRESH_MS = 5 * 60_000;
/** A link that stayed up this long resets its peer's backoff when it drops. */
const STABLE_LINK_MS = 60_000;
/** RSSI changes smaller than this are not worth an `updated` event … */
const RSSI_STEP_DBM = 4;
/** … unless the last one is this old. */
const RSSI_REFRESH_MS = 30_000;
/** A fragment header with a 36-character message id and one byte of data. */
const MIN_NOTIFY_BYTES = FRAGMENT_HEADER_FIXED_BYTES + 36 + 1;

/** How long open() waits for the adapter's first state. */
const ADAPTER_STATE_WAIT_MS = 5_000;
/** noble resets the controller within a few milliseconds of starting a first connection; advertise again after it. */
const REARM_AFTER_CONNECT_MS = 250;

/** A controller the radio opens itself, through the HCI multiplexer: a UART, or an adapter on the user channel. */
type OwnedController = Extract<BleControllerRef, { kind: 'uart' }> | (Extract<BleControllerRef, { kind: 'hci' }> & { channel: 'user' });

function isOwned(ref: BleControllerRef): ref is OwnedController {
  return ref.kind === 'uart' || ref.channel === 'user';
}

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
  /** The peer this link belongs to while connected (its own id, or the peer it was merged into). */
  peerId?: string;
  /** When its IDENTITY advertisement was last read. */
  advertisementReadAt?: number;
}

/** One neighbour: the links it has to this radio. Its id is the radio peer id. */
interface Neighbour {
  id: string;
  central?: Candidate;
  server?: BleServerLink;
  address?: string;
}

type Route = { kind: 'server'; link: BleServerLink } | { kind: 'central'; link: BlePeerLink };

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
  readonly #neighbours = new Map<string, Neighbour>();
  /** Link-layer id → the address its IDENTITY verified to (a resolvable private address belongs to one key). */
  readonly #verified = new Map<string, { address: string; at: number }>();
  #peripheral: BlePeripheral | undefined;
  /** Controllers the radio owns (UART, user channel), by label; empty for raw-channel adapters. */
  readonly #controllers = new Map<string, HciController>();
  #blenoFactory: BlenoFactory | undefined;
  /** Links (either role) already reported as too small for a fragment. */
  readonly #tooSmall = new WeakSet<BleServerLink | BlePeerLink>();
  /** Set while a faulted controller is closed and being opened again. */
  #reopening = false;
  #controllerFault: string | undefined;
  #controllerBackoff: Backoff | undefined;
  #reopenTimer: unknown;
  #peripheralNote: string | undefined;
  #centralDetail: string | undefined;

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

  /** The GATT server's state, or undefined when the peripheral role is off in the configuration. */
  get peripheralState(): PeripheralState | undefined {
    return this.#config.peripheral.enabled ? (this.#peripheral?.state ?? 'unsupported') : undefined;
  }

  protected override maxFrameBytes(peer: RadioPeer): number {
    const n = this.#neighbours.get(peer.id);
    const route = n === undefined ? undefined : this.#route(n);
    if (route?.kind === 'server') return route.link.maxFrameBytes;
    return FragmentLink.maxFrameBytes(route?.link.fragmentSize ?? fragmentSizeForAttMtu(undefined));
  }

  /**
   * Opens a UART or user-channel controller (Reset and identity reads through the HCI multiplexer) and logs what it
   * is. Undefined, with the radio in `error` (`unsupported` when there is no such device or no user channel) and
   * the reason, when it does not open.
   */
  async #openController(ref: OwnedController): Promise<HciController | undefined> {
    const existing = this.#controllers.get(ref.label);
    if (existing !== undefined) return existing;
    const hciSocket = this.#deps.hciSocket;
    let source: UartOptions | UserChannelOptions;
    if (ref.kind === 'uart') source = { path: ref.path, baudRate: ref.baudRate, flowControl: ref.flowControl };
    else {
      const index = ref.index;
      source = hciSocket === undefined ? { index } : { index, openSocket: () => hciSocket(index) };
    }
    const controller = new HciController(source, { onFault: (reason, code) => this.#onControllerFault(ref.label, reason, code) });
    try {
      const info = await controller.open();
      this.log.info({ radio: this.id, controller: ref.label, manufacturer: info.manufacturer, hciVersion: info.hciVersion, address: info.address }, 'BLE controller opened');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.#reopening) this.#setCentralState('degraded', `${this.#controllerFault ?? ref.label}; reopening failed: ${message}`);
      else this.#setCentralState(err instanceof BleTransportError && (err.code === 'NO_DEVICE' || err.code === 'UNSUPPORTED') ? 'unsupported' : 'error', message);
      return undefined;
    }
    this.#controllers.set(ref.label, controller);
    return controller;
  }

  /**
   * A controller that sent garbage, went silent or away: both stacks and the port are closed and opened again
   * after the reconnect backoff, until the controller answers. Frames the router already took (and ACKed) are the
   * router's; what was on the air unACKed is resent by the phones. The radio is `degraded` with the reason meanwhile.
   */
  #onControllerFault(label: string, reason: string, code: string): void {
    if (this.#stopping || this.#reopening) return;
    this.log.warn({ radio: this.id, controller: label, code, reason }, 'BLE controller fault; reopening it');
    this.#reopening = true;
    this.#controllerFault = `${label}: ${reason}`;
    this.#setCentralState('degraded', `${this.#controllerFault}; reopening`);
    void this.#teardown().then(() => this.#scheduleReopen());
  }

  #scheduleReopen(): void {
    if (this.#stopping) return;
    this.#controllerBackoff ??= new Backoff({ initialMs: this.#config.reconnect.initialMs, maxMs: this.#config.reconnect.maxMs, random: this.#deps.random });
    this.#reopenTimer = this.clock.setTimeout(() => {
      this.#reopenTimer = undefined;
      void this.#reopen();
    }, this.#controllerBackoff.next());
  }

  async #reopen(): Promise<void> {
    if (this.#stopping) return;
    await this.doOpen();
    if (this.#stopping) return;
    const wanted = [this.#config.controller, ...(this.#config.peripheral.enabled ? [this.#config.peripheral.controller] : [])].filter(isOwned);
    if (wanted.some((c) => !this.#controllers.has(c.label))) {
      await this.#teardown();
      this.#scheduleReopen();
      return;
    }
    this.#reopening = false;
    this.#controllerFault = undefined;
    this.#controllerBackoff?.reset();
    this.log.info({ radio: this.id }, 'BLE controller reopened');
  }

  protected async doOpen(): Promise<void> {
    const { peripheral } = this.#config;
    // Legacy commands only when bleno advertises on the same controller (see NobleFactory).
    let nobleFactory = this.#deps.noble ?? loadNoble;
    const central = this.#config.controller;
    if (isOwned(central) && this.#deps.noble === undefined) {
      const controller = await this.#openController(central);
      if (controller === undefined) return;
      nobleFactory = ({ legacy }) => controller.noble(legacy ?? false);
    }
    if (peripheral.enabled && isOwned(peripheral.controller) && this.#deps.bleno === undefined) {
      const controller = await this.#openController(peripheral.controller);
      if (controller !== undefined) this.#blenoFactory = () => controller.bleno();
    }
    const noble = nobleFactory({ adapter: this.#config.adapter, legacy: peripheral.enabled && peripheral.sharedAdapter });
    this.#noble = noble;
    // noble prints its warnings on the console; they belong in the gateway's log.
    noble.removeAllListeners('warning');
    noble.on('warning', (message) => this.log.debug({ radio: this.id, message }, 'noble warning'));
    noble.on('scanStart', () => {
      // A scan enable that completes while the adapter is off (in flight when it reset) was wiped by the reset.
      if (this.#adapterState !== 'poweredOn') return;
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
        if (this.#adapterState === 'unknown') this.#setCentralState('degraded', `${this.#config.controller.label}: adapter reported no state yet`);
        resolve();
      }, ADAPTER_STATE_WAIT_MS);
      noble.on('stateChange', (state) => {
        detachNobleSignalHandlers(noble);
        if (state === 'poweredOn') recoverFromHardwareErrors(noble, (code) => this.log.warn({ radio: this.id, code }, 'the adapter reset itself (HCI Hardware Error); bringing it back'));
        this.#onAdapterState(state);
        this.clock.clearTimeout(timer);
        resolve();
      });
    });
    await first;
    // noble first: its start-up resets the controller, which would end advertising begun before it.
    this.#openPeripheral();
    this.#armHousekeeping();
  }

  #openPeripheral(): void {
    const { peripheral } = this.#config;
    if (!peripheral.enabled || this.#stopping) return;
    if (peripheral.sharedAdapter && (this.#adapterState === 'unsupported' || this.#adapterState === 'unauthorized')) {
      this.#notePeripheral('unsupported', `the adapter is ${this.#adapterState}`);
      return;
    }
    const identity = this.#deps.identity;
    if (identity === undefined) {
      this.#notePeripheral('unsupported', 'the radio was given no gateway identity to serve');
      return;
    }
    this.#peripheral = new BlePeripheral({
      config: this.#config,
      identity,
      factory: this.#blenoFactory ?? this.#deps.bleno ?? loadBleno,
      sysDir: this.#deps.sysDir,
      clock: this.clock,
      log: this.log,
      radioId: this.id,
      hooks: {
        onConnect: (link) => this.#onClientConnect(link),
        onSubscribe: (link) => this.#onClientSubscription(link),
        onUnsubscribe: (link) => this.#onClientSubscription(link),
        onDisconnect: (link, reason) => this.#onClientGone(link, reason),
        onFrame: (link, frame) => this.#onFrame(link.peerId, frame, undefined),
        onDrop: (reason, details) => this.countDrop(reason, details),
        onState: (state, detail) => this.#notePeripheral(state, detail),
        advertisement: () => this.#advertisementFigures(),
      },
    });
    this.#peripheral.start();
  }

  protected async doClose(): Promise<void> {
    this.#stopping = true;
    if (this.#reopenTimer !== undefined) this.clock.clearTimeout(this.#reopenTimer);
    await this.#teardown();
  }

  /** Stops both stacks, drops every link and closes the controllers the radio owns. */
  async #teardown(): Promise<void> {
    // Nothing may start scanning or connecting while the stacks go down.
    this.#adapterState = 'unknown';
    if (this.#housekeeping !== undefined) this.clock.clearTimeout(this.#housekeeping);
    if (this.#collectTimer !== undefined) this.clock.clearTimeout(this.#collectTimer);
    const noble = this.#noble;
    await this.#peripheral?.close();
    const links = [...this.#candidates.values()].flatMap((c) => (c.link === undefined ? [] : [c.link]));
    await Promise.all(links.map((link) => link.close()));
    this.#candidates.clear();
    this.#neighbours.clear();
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
    // The links went with the stacks: their peers are down until the controller is back (close() does its own).
    if (this.#reopening) for (const peer of this.peers()) if (peer.connected) this.peerDown(peer.id, this.#controllerFault ?? 'controller fault');
    this.#noble = undefined;
    this.#peripheral = undefined;
    this.#blenoFactory = undefined;
    this.#scanning = false;
    // A scan start in flight on the stack just stopped never completes: left set, it would keep the next stack from
    // ever scanning (seen after a garbage fault whose teardown waited out a link's disconnect).
    this.#scanStarting = false;
    this.#connecting = false;
    for (const controller of this.#controllers.values()) await controller.close();
    this.#controllers.clear();
  }

  protected async writeFrame(peerId: string, frame: Uint8Array): Promise<void> {
    const n = this.#neighbours.get(peerId);
    const route = n === undefined ? undefined : this.#route(n);
    if (route === undefined) {
      throw new RadioError('PEER_LOST', `BLE peer ${peerId} is not connected`, { radioId: this.id, peerId });
    }
    await route.link.write(frame);
  }

  /**
   * The link a frame to this neighbour takes: the server link once the central has subscribed (it verified the
   * gateway on that link, so a reference phone accepts what comes over it), else the central link, else a server
   * link still waiting for its subscription.
   */
  #route(n: Neighbour): Route | undefined {
    if (n.server?.subscribed) return { kind: 'server', link: n.server };
    const central = n.central?.link;
    if (central?.connected) return { kind: 'central', link: central };
    if (n.server?.connected) return { kind: 'server', link: n.server };
    return undefined;
  }

  #onAdapterState(state: string): void {
    const previous = this.#adapterState;
    this.#adapterState = state;
    const hci = this.#config.controller.label;
    if (previous === 'unsupported') return;
    switch (state) {
      case 'poweredOn':
        // Back from off or reset: noble's start-up reset ended any advertising on a shared controller.
        if (previous !== 'poweredOn' && previous !== 'unknown' && this.#config.peripheral.sharedAdapter) this.#peripheral?.rearm();
        this.#refreshState();
        this.#ensureScanning();
        return;
      case 'unsupported':
        this.#setCentralState('unsupported', `${hci}: no usable Bluetooth LE adapter (missing, or BLE not supported)`);
        // noble's HCI binding keeps polling a missing adapter every second; stop it (restart the gateway after
        // attaching an adapter).
        setImmediate(() => this.#noble?.stop());
        return;
      case 'unauthorized':
        this.#setCentralState('error', `${hci}: no permission for raw HCI; grant it with: sudo setcap cap_net_raw,cap_net_admin+eip $(readlink -f $(which node))`);
        return;
      default:
        this.#scanning = false;
        // noble forgets every peripheral when its adapter leaves poweredOn; connecting through an object from before
        // would never complete ("unknown peripheral connected") and hold #connecting forever. Wait for a new sighting.
        for (const c of this.#candidates.values()) c.seenAt = Number.NEGATIVE_INFINITY;
        this.#setCentralState('degraded', `${hci}: adapter ${state}`);
    }
  }

  #refreshState(): void {
    if (this.#stopping || this.#adapterState !== 'poweredOn') return;
    const hci = this.#config.controller.label;
    if (this.#scanning || this.#connecting || this.#connectedCount() > 0 || this.#clientCount() > 0) this.#setCentralState('ready', hci);
  }

  /** The radio's state comes from the central role; the detail also says how the peripheral role is doing. */
  #setCentralState(state: RadioState, detail: string): void {
    this.#centralDetail = detail;
    this.setState(state, this.#peripheralNote === undefined ? detail : `${detail}; ${this.#peripheralNote}`);
  }

  #notePeripheral(state: PeripheralState, detail: string | undefined): void {
    if (state === 'stopped') return;
    const words: Record<Exclude<PeripheralState, 'stopped'>, string> = {
      starting: 'peripheral starting',
      advertising: 'peripheral advertising',
      full: 'peripheral full',
      off: 'peripheral off',
      unsupported: 'peripheral unsupported',
      error: 'peripheral error',
    };
    const note = state === 'starting' || state === 'advertising' || detail === undefined ? words[state] : `${words[state]}: ${detail}`;
    if (note === this.#peripheralNote) return;
    this.#peripheralNote = note;
    if (state === 'unsupported' || state === 'error') this.log.warn({ radio: this.id, detail }, 'BLE GATT server not available; the central role goes on');
    const current = this.state;
    if (this.#centralDetail !== undefined && current !== 'starting' && current !== 'stopped') this.#setCentralState(current, this.#centralDetail);
  }

  #ensureScanning(): void {
    const noble = this.#noble;
    if (noble === undefined || this.#stopping || this.#adapterState !== 'poweredOn') return;
    if (this.#scanning || this.#scanStarting || this.#connecting) return;
    this.#scanStarting = true;
    noble.startScanning([this.#serviceUuid], true, (err) => {
      // A stack torn down since (a controller fault) answers late or never; its answer says nothing of the new one.
      if (this.#noble !== noble) return;
      this.#scanStarting = false;
      if (err) {
        this.log.warn({ radio: this.id, err: err.message }, 'BLE scan did not start');
        if (this.#connectedCount() === 0) this.#setCentralState('degraded', `${this.#config.controller.label}: scan failed: ${err.message}`);
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
    const peerId = c.peerId ?? p.id;
    if (c.phase === 'connected' && (Math.abs((this.peer(peerId)?.rssi ?? p.rssi) - p.rssi) >= RSSI_STEP_DBM || now - c.rssiReportedAt >= RSSI_REFRESH_MS)) {
      c.rssiReportedAt = now;
      this.peerUpdate(peerId, { rssi: p.rssi });
    }
    this.#maybeConnect();
  }

  #maybeConnect(): void {
    if (this.#connecting || this.#stopping || this.#adapterState !== 'poweredOn') return;
    if (this.#connectedCount() >= this.#config.maxPeers) return;
    const now = this.clock.now();
    if (now < this.#collectUntil) return;
    const windowOpen = this.#deps.admission?.isOpen === true;
    const listed = windowOpen ? undefined : this.#listedRefs();
    // Nobody listed and no window open: every handshake would be refused.
    if (listed?.length === 0) return;
    const ids = listed?.filter((ref) => !ref.startsWith('off1')) ?? [];
    // Addresses need the handshake; with only peripheral ids listed the choice is made before connecting.
    const onlyIds = listed !== undefined && ids.length === listed.length;
    let best: Candidate | undefined;
    for (const c of this.#candidates.values()) {
      if (c.phase !== 'idle' || c.nextAttemptAt > now || now - c.seenAt > FRESH_ADVERTISEMENT_MS) continue;
      if (!c.peripheral.connectable) continue;
      // With only peripheral ids listed the choice can be made before connecting; addresses need the handshake.
      if (onlyIds && !ids.includes(normalisePeerRef(c.peripheral.id))) continue;
      // The device is already linked to us as a central at this address: on one controller a second link to it
      // is refused ("connection already exists"), and it would add nothing.
      if (this.#config.peripheral.sharedAdapter && this.#neighbours.get(c.peripheral.id)?.server?.connected === true) continue;
      if (best === undefined || c.rssi > best.rssi) best = c;
    }
    if (best !== undefined) void this.#connect(best);
  }

  async #connect(c: Candidate): Promise<void> {
    this.#connecting = true;
    c.phase = 'connecting';
    const id = c.peripheral.id;
    // noble resets a controller that has no link before connecting, which ends advertising on a shared one.
    const resets = this.#config.peripheral.sharedAdapter && this.#peripheral !== undefined && this.#connectedCount() + this.#clientCount() === 0;
    const rearm = resets ? this.clock.setTimeout(() => this.#peripheral?.rearm(), REARM_AFTER_CONNECT_MS) : undefined;
    const link = new BlePeerLink({
      peripheral: c.peripheral,
      config: this.#config,
      clock: this.clock,
      log: this.log,
      radioId: this.id,
      onFrame: (frame) => this.#onFrame(c.peerId ?? id, frame, c.rssi),
      onDrop: (reason, details) => this.countDrop(reason, { peerId: c.peerId ?? id, ...details }),
      onMtu: (attMtu) => {
        const n = this.#neighbours.get(c.peerId ?? id);
        if (n !== undefined && this.#route(n)?.kind === 'central') this.peerUpdate(n.id, { mtu: attMtu - 3 });
        if (n !== undefined && n.central === c) this.#checkCentralMtu(n, c);
      },
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
      c.advertisementReadAt = c.connectedAt;
      this.#attachCentral(c, identity.address, identity.attMtu === null ? undefined : identity.attMtu - 3, identity.advertisement);
    } catch (err) {
      c.link = undefined;
      c.phase = 'idle';
      const reason = err instanceof BleHandshakeError ? err.reason : 'CONNECT_FAILED';
      const identityRefused = reason.startsWith('IDENTITY_') || reason === 'NOT_ALLOWED' || reason === 'SELF';
      // A peer that failed its identity will fail it again: do not hammer it.
      const delay = identityRefused ? this.#config.reconnect.maxMs : c.backoff.next();
      c.nextAttemptAt = this.clock.now() + delay;
      this.countDrop(`ble_${reason.toLowerCase()}`, { peerId: id });
      (identityRefused && reason !== 'SELF' ? this.log.warn : this.log.debug).call(this.log, { radio: this.id, peer: id, reason, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'BLE peer refused or unreachable');
    } finally {
      this.#connecting = false;
      if (rearm !== undefined) {
        this.clock.clearTimeout(rearm);
        this.#peripheral?.rearm();
      }
      this.#refreshState();
      this.#ensureScanning();
      this.#maybeConnect();
    }
  }

  /** A central link finished its handshake: it joins the neighbour with its link-layer id or its verified address. */
  #attachCentral(c: Candidate, address: string | undefined, mtu: number | undefined, adv: MeshAdvertisement | undefined): void {
    const id = c.peripheral.id;
    if (address !== undefined) this.#verified.set(id, { address, at: this.clock.now() });
    let n = this.#neighbours.get(id) ?? (address === undefined ? undefined : this.#neighbourWithAddress(address));
    if (n === undefined) {
      n = { id };
      this.#neighbours.set(id, n);
    }
    n.central = c;
    c.peerId = n.id;
    if (address !== undefined) n.address = address;
    this.log.info({ radio: this.id, peer: n.id, link: id, address, mtu }, n.id === id ? 'BLE peer connected' : 'BLE peer connected (merged by verified address)');
    const patch: PeerInfo = { id: n.id, wireVersions: [], rssi: c.rssi, ...advertisedHealth(adv) };
    if (this.#route(n)?.kind === 'central' && mtu !== undefined) patch.mtu = mtu;
    this.#publish(n, patch);
    this.#checkCentralMtu(n, c);
  }

  #neighbourWithAddress(address: string): Neighbour | undefined {
    for (const n of this.#neighbours.values()) if (n.address === address) return n;
    return undefined;
  }

  /** Announce a neighbour that gained a link: `up` when it had none, else `updated`. */
  #publish(n: Neighbour, patch: PeerInfo): void {
    const info: PeerInfo = { ...patch, id: n.id };
    if (n.address !== undefined) info.address = n.address;
    if (this.peer(n.id)?.connected !== true) {
      this.peerUp(info);
      return;
    }
    // What the peer's frames taught us about its wire versions outlives the link that is joining.
    const { wireVersions: _keep, ...update } = info;
    this.peerUpdate(n.id, update);
  }

  /** A link of the neighbour went away or changed: the peer goes down with its last link, else its MTU follows the route. */
  #linksChanged(n: Neighbour, reason: string): void {
    const route = this.#route(n);
    if (route === undefined) {
      this.#neighbours.delete(n.id);
      this.peerDown(n.id, reason);
      return;
    }
    const mtu = route.kind === 'server' ? route.link.mtu : route.link.attMtu === null ? undefined : route.link.attMtu - 3;
    if (mtu !== undefined) this.peerUpdate(n.id, { mtu });
  }

  // ---- the GATT server's centrals ----

  #onClientConnect(link: BleServerLink): boolean {
    const id = link.clientId;
    const known = this.#verified.get(id)?.address;
    let n = this.#neighbours.get(id) ?? (known === undefined ? undefined : this.#neighbourWithAddress(known));
    if (n?.server?.connected) {
      // The device already has a server link under another address: one is enough.
      this.countDrop('ble_client_duplicate', { peerId: n.id, link: id });
      return false;
    }
    const address = n?.address ?? known;
    if (!this.#clientAllowed(id, address)) {
      this.countDrop('ble_client_not_allowed', { peerId: id });
      this.log.warn({ radio: this.id, central: id, address }, 'BLE central not in allow_peers nor paired; disconnected');
      return false;
    }
    if (n === undefined) {
      n = { id };
      this.#neighbours.set(id, n);
    }
    n.server = link;
    link.peerId = n.id;
    if (address !== undefined) n.address = address;
    this.log.info({ radio: this.id, peer: n.id, link: id, address }, 'BLE central connected to the GATT server');
    const patch: PeerInfo = { id: n.id, wireVersions: [] };
    if (this.#route(n)?.kind === 'server' && link.mtu !== undefined) patch.mtu = link.mtu;
    this.#publish(n, patch);
    this.#refreshState();
    return true;
  }

  #onClientSubscription(link: BleServerLink): void {
    const n = this.#neighbours.get(link.peerId);
    if (n === undefined || n.server !== link) return;
    this.log.debug({ radio: this.id, peer: n.id, subscribed: link.subscribed, mtu: link.mtu }, 'BLE central subscription');
    this.#linksChanged(n, 'subscription changed');
    // ATT MTU 23 leaves 20 bytes per notification; a fragment header with its 36-character id needs 46. Without
    // this, every frame to the central (ACKs included) fails FRAME_TOO_LARGE where nobody looks.
    if (link.subscribed && link.maxFrameBytes === 0) this.#reportMtuTooSmall(n, link, (link.mtu ?? 20) + 3, 'central', 'the central must exchange a larger MTU');
  }

  /**
   * A link whose notifications cannot carry one fragment header: a counter, the peer's `problem` and one warning
   * naming the peer, once per link. `role` is the role of the peer on that link.
   */
  #reportMtuTooSmall(n: Neighbour, link: BleServerLink | BlePeerLink, attMtu: number, role: 'central' | 'peripheral', remedy: string): void {
    if (this.#tooSmall.has(link)) return;
    this.#tooSmall.add(link);
    this.countMtuTooSmall();
    const problem = `ATT MTU ${attMtu} cannot carry one fragment header (needs ${MIN_NOTIFY_BYTES} bytes per notification, has ${attMtu - 3}); ${remedy}`;
    this.log.warn({ radio: this.id, peer: n.id, address: n.address, attMtu }, `BLE ${role} ${n.id}: ${problem}`);
    if (this.peer(n.id) !== undefined) this.peerUpdate(n.id, { problem });
  }

  /**
   * The gateway is the central: its writes are 185-byte fragments whatever the MTU (the reference rule, and neither
   * stack enforces the MTU on write commands), but the peripheral's notifications are cut to ATT MTU − 3 bytes, so
   * at MTU 23 nothing the phone sends (its ACKs included) arrives whole.
   */
  #checkCentralMtu(n: Neighbour, c: Candidate): void {
    const link = c.link;
    if (link?.attMtu === null || link === undefined || link.attMtu - 3 >= MIN_NOTIFY_BYTES) return;
    this.#reportMtuTooSmall(n, link, link.attMtu, 'peripheral', "its notifications are cut and dropped; the peripheral must accept a larger MTU (the gateway asks for 517)");
  }

  #onClientGone(link: BleServerLink, reason: string): void {
    const n = this.#neighbours.get(link.peerId);
    if (n === undefined || n.server !== link) return;
    n.server = undefined;
    this.log.info({ radio: this.id, peer: n.id, reason }, 'BLE central left the GATT server');
    this.#linksChanged(n, `central ${reason}`);
    this.#refreshState();
  }

  /** allow_peers for centrals: the link id, or the address it is known by (through a central link). */
  #clientAllowed(linkId: string, address: string | undefined): boolean {
    return this.#admits([linkId, address]);
  }

  /**
   * `admission: any` takes every peer; `listed` a peer named by `allow_peers` or admitted by an earlier pairing
   * window under any of `refs` (its link id, its verified address), or, while a window is open, any peer, recorded.
   */
  #admits(refs: readonly (string | undefined)[]): boolean {
    if (this.#config.admission === 'any') return true;
    const admission = this.#deps.admission;
    if (refs.some((r) => r !== undefined && (this.#config.allowPeers.includes(r) || admission?.isPaired(r) === true))) return true;
    // The verified address first: it names the peer for good; a link id may be a rotating private address.
    return admission?.admit(this.id, [...refs].reverse()) ?? false;
  }

  /** The peers a `listed` radio may take (config and paired), or undefined when any peer goes. */
  #listedRefs(): string[] | undefined {
    if (this.#config.admission === 'any') return undefined;
    return [...this.#config.allowPeers, ...(this.#deps.admission?.list().map((p) => p.ref) ?? [])];
  }

  #advertisementFigures(): { degree: number; freeSlots: number } {
    const { maxPeers, peripheral } = this.#config;
    const centrals = this.#connectedCount();
    const clients = this.#clientCount();
    return { degree: this.#neighbours.size, freeSlots: Math.max(0, maxPeers - centrals) + Math.max(0, peripheral.maxClients - clients) };
  }

  #clientCount(): number {
    return this.#peripheral?.links().length ?? 0;
  }

  #onFrame(peerId: string, frame: Uint8Array, rssi: number | undefined): void {
    // BLE has no capability exchange below the message layer (wire versions travel in `__MLS_KEY_PKG__` bodies,
    // which the router reads). A peer that sends binary v1 decodes it too: reference receivers accept both
    // encodings unconditionally. So the first binary frame marks the link binary-capable.
    if (frame[0] === WIRE_V1_MAGIC && this.peer(peerId)?.wireVersions.includes(1) === false) {
      this.peerUpdate(peerId, { wireVersions: [1] });
    }
    this.deliver(peerId, frame, rssi);
  }

  #allowed(peripheralId: string, identity: BlePeerIdentity): true | HandshakeFailure {
    if (identity.address !== undefined && identity.address === this.#deps.identity?.address) return 'SELF';
    if (identity.address !== undefined) {
      const other = this.#neighbourWithAddress(identity.address);
      // A second central link to a device we already reach that way (it rotated its address): one is enough.
      if (other !== undefined && other.central?.phase === 'connected' && other.central.peripheral.id !== peripheralId) return 'DUPLICATE_PEER';
    }
    return this.#admits([normalisePeerRef(peripheralId), identity.address]) ? true : 'NOT_ALLOWED';
  }

  #onLinkLost(c: Candidate, reason: string): void {
    const id = c.peripheral.id;
    const peerId = c.peerId ?? id;
    const now = this.clock.now();
    if (c.connectedAt !== undefined && now - c.connectedAt >= STABLE_LINK_MS) c.backoff.reset();
    c.link = undefined;
    c.phase = 'idle';
    c.connectedAt = undefined;
    c.peerId = undefined;
    c.nextAttemptAt = now + c.backoff.next();
    this.log.info({ radio: this.id, peer: peerId, link: id, reason, retryAt: c.nextAttemptAt }, 'BLE peer lost');
    const n = this.#neighbours.get(peerId);
    if (n !== undefined && n.central === c) {
      n.central = undefined;
      this.#linksChanged(n, reason);
    } else this.peerDown(peerId, reason);
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
      if (c.phase === 'connected' && c.link !== undefined && now - (c.advertisementReadAt ?? 0) >= ADVERTISEMENT_REFRESH_MS) {
        c.advertisementReadAt = now;
        void this.#refreshAdvertisement(c, c.link);
      }
      if (c.phase === 'idle' && now - c.seenAt > FORGET_AFTER_MS) {
        this.#candidates.delete(id);
        // A device still linked to the GATT server stays a peer.
        if (!this.#neighbours.has(id)) this.peerDown(id, 'not seen for 10 minutes', true);
      }
    }
    this.#peripheral?.sweep();
    for (const [id, v] of this.#verified) {
      if (now - v.at > FORGET_AFTER_MS && !this.#neighbours.has(id) && !this.#candidates.has(id)) this.#verified.delete(id);
    }
    if (!this.#scanning && !this.#connecting && this.#adapterState === 'poweredOn') {
      this.log.debug({ radio: this.id }, 'BLE scan found stopped; restarting');
      this.#ensureScanning();
    }
    this.#maybeConnect();
  }

  async #refreshAdvertisement(c: Candidate, link: BlePeerLink): Promise<void> {
    const adv = await link.readAdvertisement();
    if (adv === undefined || c.link !== link || c.peerId === undefined) return;
    const health = advertisedHealth(adv);
    const peer = this.peer(c.peerId);
    if (peer !== undefined && (peer.battery !== health.battery || peer.load !== health.load)) this.peerUpdate(c.peerId, health);
  }

  #connectedCount(): number {
    let n = 0;
    for (const c of this.#candidates.values()) if (c.phase === 'connected') n += 1;
    return n;
  }
}
