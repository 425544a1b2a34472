/**
 * The radios of the gateway: the seam (`radio.ts`), the factory, and the three implementations.
 *
 * `createRadio` checks the configuration (throwing `RadioError` `BAD_CONFIG` with the setting's path) and builds
 * the radio without touching hardware; `open()` loads the optional package (noble, serialport) and never rejects
 * for a missing one.
 */
import { BleRadio, type BleRadioDeps } from './ble/ble-radio';
import type { PeerAdmission } from './peer-admission';
import { resolveRadioConfig, type RadioConfig } from './radio-config';
import { backgroundClock, type Clock } from '../../lib/clock';
import type { Radio, RadioLogger } from './radio';
import type { RadioBaseOptions } from './radio-base';
import type { MeshIdentity } from './mesh-identity';
import { SerialRadio, type SerialRadioDeps } from './serial/serial-radio';
import { SimulatedRadio } from './simulated/simulated-radio';

export * from './radio';
export * from './radio-config';
export { TypedEmitter, type TypedEvents } from '../../lib/typed-emitter';
export { BleRadio, type BleRadioDeps } from './ble/ble-radio';
export { SerialRadio, type SerialRadioDeps } from './serial/serial-radio';
export { SimulatedRadio, VirtualPeer, type VirtualReceipt } from './simulated/simulated-radio';
export { listSerialPorts, portMatches, type SerialPortListing } from './serial/serial-port-list';
export type { SerialBackend, SerialPortInfo, SerialPortLike } from './serial/serial-backend';
export type { NobleFactory, NobleLike } from './ble/ble-noble';
export type { BlenoFactory, BlenoLike } from './ble/ble-bleno';
export type { PeripheralState } from './ble/ble-peripheral';
export {
  identityFromSeed,
  buildIdentityBlob,
  verifyIdentityBlob,
  buildAdvertisement,
  parseAdvertisement,
  type MeshAdvertisement,
  type MeshIdentity,
} from './mesh-identity';

export { PeerAdmission, PAIRED_PEERS_FILE, type PairedPeer, type PairingState } from './peer-admission';

export interface RadioDeps {
  logger: RadioLogger;
  clock?: Clock;
  /** The gateway's state folder. */
  stateDir: string;
  /** BLE: the peers pairing windows admitted, and the window (radios with `admission: listed`). */
  admission?: PeerAdmission;
  /** The gateway's own `off1…` address: announced in the serial HELLO, default recipient of talking virtual peers. */
  localAddress?: string;
  /**
   * The gateway's identity (Ed25519 key and its address; `GatewayIdentity` fits): the BLE GATT server serves it in
   * DEVICE_ID and IDENTITY. Without it the peripheral role reports unsupported and the central role runs alone.
   */
  identity?: MeshIdentity;
  /** BLE: build noble over another binding (tests) instead of the real adapter. */
  noble?: BleRadioDeps['noble'];
  /** BLE: build bleno over another binding (tests) instead of the real adapter. */
  bleno?: BleRadioDeps['bleno'];
  /** BLE: the HCI user channel's socket (tests: one over a virtual controller) instead of the kernel's. */
  hciSocket?: BleRadioDeps['hciSocket'];
  /** Serial: another port backend (tests: SerialPortMock) instead of the real `serialport`. */
  serial?: SerialRadioDeps['backend'];
  /** Serial: roots of the /dev + sysfs port scan used when `udevadm` is missing; BLE: sysfs root of the adapter check. */
  devDir?: string;
  sysDir?: string;
  /** Jitter source of the reconnect backoff. */
  random?: () => number;
}

/** Builds a radio from its configuration. Throws `RadioError` `BAD_CONFIG` (with `details.path`) for a bad setting. */
export function createRadio(config: RadioConfig, deps: RadioDeps, path = 'radio'): Radio {
  const resolved = resolveRadioConfig(config, path);
  const base: RadioBaseOptions = {
    logger: deps.logger,
    clock: deps.clock ?? backgroundClock,
    queueLimit: resolved.queueLimit,
    queueByteLimit: resolved.queueByteLimit,
  };
  switch (resolved.kind) {
    case 'ble':
      return new BleRadio(resolved, base, {
        noble: deps.noble,
        bleno: deps.bleno,
        hciSocket: deps.hciSocket,
        identity: deps.identity,
        sysDir: deps.sysDir,
        random: deps.random,
        admission: deps.admission,
      });
    case 'serial':
      return new SerialRadio(resolved, base, {
        backend: deps.serial,
        localAddress: deps.localAddress,
        random: deps.random,
        devDir: deps.devDir,
        sysDir: deps.sysDir,
      });
    case 'simulated':
      return new SimulatedRadio(resolved, base, { localAddress: deps.localAddress });
  }
}
