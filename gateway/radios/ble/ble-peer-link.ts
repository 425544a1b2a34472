/**
 * One BLE connection to a mesh peer, from connect to disconnect, with the gateway as GATT central.
 *
 * Handshake, in the order the reference Android central uses (mesh-reference-facts.md §3): connect (asking for
 * ATT MTU 517) → discover the mesh service and its MESSAGE / DEVICE_ID / IDENTITY characteristics → read
 * DEVICE_ID (the `off1…` address) → read IDENTITY and verify it (≥ 96 bytes, Ed25519 signature over `adv`, address
 * derived from the key equals DEVICE_ID) → subscribe to MESSAGE → ready. The peer is then known under the derived
 * address.
 *
 * Writes: one outstanding write per peer, write-without-response, at least `minWriteGapMs` between a write's
 * completion and the next write, and a write gate: when no completion callback arrives within `writeGateMs` the
 * write counts as done (the reference Android watchdog does the same; write-without-response has no ATT ack).
 */
import { utf8DecodeStrict } from '../../../lib/bytes';
import { fragmentSizeForAttMtu } from '../../../lib/mesh/ble-fragment';
import { MESH_CHARACTERISTICS, type NobleCharacteristic, type NoblePeripheral, nobleUuid } from './ble-noble';
import { FragmentLink } from '../fragment-link';
import { parseAdvertisement, verifyIdentityBlob, type MeshAdvertisement } from '../mesh-identity';
import type { ResolvedBleConfig } from '../radio-config';
import type { Clock } from '../../../lib/clock';
import { RadioError, type RadioLogger } from '../radio';

/** ATT MTU the gateway asks for (Android's `requestMtu(517)`). */
export const REQUESTED_ATT_MTU = 517;
/** Android drops inbound writes/notifications above this; so do we. */
const MAX_INBOUND_WRITE_BYTES = 4096;
/** A write with response that sees no answer in this long fails the link. */
const WRITE_WITH_RESPONSE_TIMEOUT_MS = 5_000;

export type HandshakeFailure =
  | 'CONNECT_FAILED'
  | 'CONNECT_TIMEOUT'
  | 'HANDSHAKE_TIMEOUT'
  | 'NO_MESH_SERVICE'
  | 'DEVICE_ID_UNAVAILABLE'
  | 'IDENTITY_TOO_SHORT'
  | 'IDENTITY_BAD_SIGNATURE'
  | 'IDENTITY_ADDRESS_MISMATCH'
  | 'IDENTITY_BAD_KEY'
  | 'NOT_ALLOWED'
  | 'DUPLICATE_PEER'
  /** The peer's IDENTITY is the gateway's own: its central found its own GATT server (on another adapter). */
  | 'SELF'
  | 'SUBSCRIBE_FAILED'
  | 'DISCONNECTED';

export class BleHandshakeError extends Error {
  constructor(
    readonly reason: HandshakeFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface BlePeerIdentity {
  /** Verified `off1…` address, or undefined when identity checks are off and the blob did not verify. */
  address: string | undefined;
  deviceId: string;
  /** Raw ATT MTU as negotiated (null before the exchange finished). */
  attMtu: number | null;
  /** What the verified IDENTITY's signed advertisement says (battery, load, …); undefined when it did not verify. */
  advertisement?: MeshAdvertisement;
}

export interface BlePeerLinkOptions {
  peripheral: NoblePeripheral;
  config: ResolvedBleConfig;
  clock: Clock;
  log: RadioLogger;
  radioId: string;
  onFrame: (frame: Uint8Array) => void;
  onDrop: (reason: string, details: Record<string, unknown>) => void;
  onMtu: (attMtu: number) => void;
  onDisconnect: (reason: string) => void;
  /** Decides from the verified identity whether to keep the peer (`allow_peers`, a duplicate): true, or why not. */
  accept: (identity: BlePeerIdentity) => true | HandshakeFailure;
}

export class BlePeerLink {
  readonly #o: BlePeerLinkOptions;
  readonly #inbound: FragmentLink;
  #message: NobleCharacteristic | undefined;
  #identityChar: NobleCharacteristic | undefined;
  #deviceId: string | undefined;
  #connected = false;
  #closed = false;
  #attMtu: number | null = null;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #abortWrite: ((err: RadioError) => void) | undefined;
  #abortHandshake: ((err: BleHandshakeError) => void) | undefined;
  readonly #onPeripheralDisconnect = (reason: unknown): void => this.#lost(`disconnected (${String(reason)})`);
  readonly #onPeripheralMtu = (mtu: number): void => {
    this.#attMtu = mtu;
    this.#o.onMtu(mtu);
  };
  readonly #onData = (data: Buffer, isNotification: boolean): void => {
    if (!isNotification || this.#closed) return;
    if (data.length > MAX_INBOUND_WRITE_BYTES) {
      this.#o.onDrop('fragment_oversize_write', { bytes: data.length });
      return;
    }
    const frame = this.#inbound.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (frame !== undefined) this.#o.onFrame(frame);
  };

  constructor(options: BlePeerLinkOptions) {
    this.#o = options;
    this.#inbound = new FragmentLink({
      maxAssemblies: Math.max(4, Math.floor(64 / options.config.maxPeers)),
      now: () => options.clock.now(),
      onDrop: options.onDrop,
    });
  }

  get connected(): boolean {
    return this.#connected && !this.#closed;
  }

  get attMtu(): number | null {
    return this.#attMtu;
  }

  /** One whole radio write, header included, for this peer's MTU (the reference rule). */
  get fragmentSize(): number {
    return fragmentSizeForAttMtu(this.#attMtu ?? undefined);
  }

  /** Connect and run the handshake; rejects with `BleHandshakeError` and leaves the peripheral disconnected. */
  async open(): Promise<BlePeerIdentity> {
    const p = this.#o.peripheral;
    const { config } = this.#o;
    try {
      await this.#deadline(
        new Promise<void>((resolve, reject) => {
          p.connect({ mtu: REQUESTED_ATT_MTU }, (err) =>
            err ? reject(new BleHandshakeError('CONNECT_FAILED', `connect failed: ${err.message}`)) : resolve(),
          );
        }),
        config.connectTimeoutMs,
        () => {
          p.cancelConnect();
          return new BleHandshakeError('CONNECT_TIMEOUT', `no connection within ${config.connectTimeoutMs} ms`);
        },
      );
    } catch (err) {
      this.#closed = true;
      throw err;
    }
    this.#connected = true;
    this.#attMtu = p.mtu;
    p.on('disconnect', this.#onPeripheralDisconnect);
    p.on('mtu', this.#onPeripheralMtu);
    // A disconnect mid-handshake fails it at once instead of waiting out the deadline on reads that never answer.
    const lost = new Promise<never>((_, reject) => {
      this.#abortHandshake = reject;
    });
    lost.catch(() => undefined);
    try {
      const identity = await this.#deadline(
        Promise.race([this.#handshake(), lost]),
        config.handshakeTimeoutMs,
        () => new BleHandshakeError('HANDSHAKE_TIMEOUT', `handshake did not finish within ${config.handshakeTimeoutMs} ms`),
      );
      if (this.#closed) throw new BleHandshakeError('DISCONNECTED', 'the peer disconnected during the handshake');
      return identity;
    } catch (err) {
      await this.close();
      throw err;
    } finally {
      this.#abortHandshake = undefined;
    }
  }

  async #handshake(): Promise<BlePeerIdentity> {
    const p = this.#o.peripheral;
    const { config } = this.#o;
    const characteristics = await new Promise<NobleCharacteristic[]>((resolve, reject) => {
      p.discoverSomeServicesAndCharacteristics(
        [nobleUuid(config.serviceUuid)],
        [MESH_CHARACTERISTICS.MESSAGE, MESH_CHARACTERISTICS.DEVICE_ID, MESH_CHARACTERISTICS.IDENTITY],
        (err, _services, found) =>
          err || found === null ? reject(new BleHandshakeError('NO_MESH_SERVICE', `mesh service not found: ${String(err)}`)) : resolve(found),
      );
    });
    const byUuid = new Map(characteristics.map((c) => [nobleUuid(c.uuid), c]));
    const message = byUuid.get(MESH_CHARACTERISTICS.MESSAGE);
    const deviceIdChar = byUuid.get(MESH_CHARACTERISTICS.DEVICE_ID);
    const identityChar = byUuid.get(MESH_CHARACTERISTICS.IDENTITY);
    if (message === undefined || deviceIdChar === undefined) {
      throw new BleHandshakeError('NO_MESH_SERVICE', 'the mesh service lacks the MESSAGE or DEVICE_ID characteristic');
    }
    const rawId = await this.#read(deviceIdChar);
    // Python peers pad with NULs; the address itself never contains one.
    const deviceId = utf8DecodeStrict(rawId)?.replace(/\0/g, '') ?? '';
    if (deviceId.length === 0) {
      // The reference fails this read until MLS is initialised: the peer is not ready yet, try again later.
      throw new BleHandshakeError('DEVICE_ID_UNAVAILABLE', 'DEVICE_ID read gave no usable value');
    }
    let address: string | undefined;
    const blob = identityChar === undefined ? new Uint8Array(0) : await this.#read(identityChar);
    const check = verifyIdentityBlob(blob, deviceId);
    if (check.ok) address = check.address;
    else if (config.requireIdentity) throw new BleHandshakeError(check.reason, `IDENTITY refused: ${check.reason}`);
    else this.#o.log.warn({ radio: this.#o.radioId, peer: p.id, reason: check.reason }, 'BLE peer identity not verified; accepted because require_identity is off');
    const identity: BlePeerIdentity = { address, deviceId, attMtu: this.#attMtu };
    if (check.ok) identity.advertisement = parseAdvertisement(check.adv);
    this.#identityChar = identityChar;
    this.#deviceId = deviceId;
    const verdict = this.#o.accept(identity);
    if (verdict !== true) {
      throw new BleHandshakeError(
        verdict,
        verdict === 'NOT_ALLOWED' ? `peer ${p.id} (${address ?? deviceId}) is not in allow_peers nor paired` : `peer ${p.id} refused: ${verdict} (${address ?? deviceId})`,
      );
    }
    this.#message = message;
    message.on('data', this.#onData);
    await new Promise<void>((resolve, reject) =>
      message.subscribe((err) => (err ? reject(new BleHandshakeError('SUBSCRIBE_FAILED', `subscribe failed: ${err.message}`)) : resolve())),
    );
    identity.attMtu = this.#attMtu;
    return identity;
  }

  /**
   * Reads IDENTITY again for the node's current advertisement (battery and load change; the key does not): undefined
   * when the link is gone, the peer serves no IDENTITY, or the new blob does not verify for the same DEVICE_ID.
   */
  async readAdvertisement(): Promise<MeshAdvertisement | undefined> {
    const char = this.#identityChar;
    const deviceId = this.#deviceId;
    if (char === undefined || deviceId === undefined || !this.connected) return undefined;
    const check = verifyIdentityBlob(await this.#read(char), deviceId);
    return check.ok ? parseAdvertisement(check.adv) : undefined;
  }

  #read(characteristic: NobleCharacteristic): Promise<Uint8Array> {
    return new Promise((resolve) => {
      // noble's HCI binding reports a failed read as empty data, not as an error; treat both alike.
      characteristic.read((err, data) => resolve(err || data === undefined ? new Uint8Array(0) : new Uint8Array(data)));
    });
  }

  /** Fragment and write one whole frame, paced. Rejects `PEER_LOST` when the link drops on the way. */
  async write(frame: Uint8Array): Promise<void> {
    const message = this.#message;
    if (message === undefined || !this.connected) throw this.#lostError();
    const withoutResponse = message.properties.includes('writeWithoutResponse') || !message.properties.includes('write');
    for (const fragment of FragmentLink.fragment(frame, this.fragmentSize)) {
      await this.#pace();
      if (!this.connected) throw this.#lostError();
      await this.#writeOne(message, fragment, withoutResponse);
      this.#lastWriteAt = this.#o.clock.now();
    }
  }

  async close(): Promise<void> {
    if (this.#closed && !this.#connected) return;
    const wasConnected = this.#connected;
    this.#closed = true;
    this.#detach();
    this.#abortWrite?.(this.#lostError());
    this.#abortHandshake?.(new BleHandshakeError('DISCONNECTED', 'the link was closed during the handshake'));
    this.#inbound.clear();
    if (wasConnected) {
      this.#connected = false;
      const p = this.#o.peripheral;
      await new Promise<void>((resolve) => {
        const timer = this.#o.clock.setTimeout(resolve, 2_000);
        p.disconnect(() => {
          this.#o.clock.clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Drop idle assemblies. */
  sweep(): void {
    this.#inbound.sweep();
  }

  #pace(): Promise<void> {
    const wait = this.#lastWriteAt + this.#o.config.minWriteGapMs - this.#o.clock.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#o.clock.setTimeout(resolve, wait));
  }

  #writeOne(message: NobleCharacteristic, fragment: Uint8Array, withoutResponse: boolean): Promise<void> {
    const { clock, config } = this.#o;
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: RadioError): void => {
        if (done) return;
        done = true;
        clock.clearTimeout(timer);
        this.#abortWrite = undefined;
        if (err === undefined) resolve();
        else reject(err);
      };
      const timer = clock.setTimeout(
        () =>
          withoutResponse
            ? finish()
            : finish(new RadioError('WRITE_TIMEOUT', `no write response within ${WRITE_WITH_RESPONSE_TIMEOUT_MS} ms`, { radioId: this.#o.radioId })),
        withoutResponse ? config.writeGateMs : WRITE_WITH_RESPONSE_TIMEOUT_MS,
      );
      this.#abortWrite = finish;
      try {
        message.write(Buffer.from(fragment.buffer, fragment.byteOffset, fragment.byteLength), withoutResponse, (err) =>
          finish(err ? new RadioError('WRITE_FAILED', `BLE write failed: ${err.message}`, { radioId: this.#o.radioId }, { cause: err }) : undefined),
        );
      } catch (err) {
        finish(new RadioError('WRITE_FAILED', `BLE write failed: ${err instanceof Error ? err.message : String(err)}`, { radioId: this.#o.radioId }, { cause: err }));
      }
    });
  }

  #lost(reason: string): void {
    if (!this.#connected) return;
    this.#connected = false;
    this.#closed = true;
    this.#detach();
    this.#abortWrite?.(this.#lostError());
    this.#inbound.clear();
    if (this.#abortHandshake !== undefined) {
      this.#abortHandshake(new BleHandshakeError('DISCONNECTED', `the peer ${reason} during the handshake`));
      return;
    }
    this.#o.onDisconnect(reason);
  }

  #detach(): void {
    const p = this.#o.peripheral;
    p.removeListener('disconnect', this.#onPeripheralDisconnect);
    p.removeListener('mtu', this.#onPeripheralMtu);
    this.#message?.removeListener('data', this.#onData);
  }

  #lostError(): RadioError {
    return new RadioError('PEER_LOST', `BLE peer ${this.#o.peripheral.id} is not connected`, {
      radioId: this.#o.radioId,
      peerId: this.#o.peripheral.id,
    });
  }

  /** Races `work` against a clock timer; on timeout `onTimeout` cleans up and supplies the error. */
  #deadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.#o.clock.setTimeout(() => reject(onTimeout()), ms);
      work.then(
        (value) => {
          this.#o.clock.clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          this.#o.clock.clearTimeout(timer);
          reject(err);
        },
      );
    });
  }
}
