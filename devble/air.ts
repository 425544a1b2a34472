/**
 * The virtual "air" several virtual controllers share: who advertises what, who scans, connection establishment,
 * and the links that carry link-layer PDUs between two controllers.
 *
 * Not modelled (on purpose): RF (channels, collisions, interference, path loss: RSSI is a number the test sets),
 * real timing (advertising and connection events are not scheduled on the spec's clocks; advertising is heard every
 * `advertisingEventMs` of wall time and PDUs move in order as fast as the event loop runs them, unless a test
 * throttles them), encryption and pairing (SMP runs in the hosts; the controller refuses LE encryption), BR/EDR,
 * extended advertising, periodic advertising, isochronous channels and PHY changes.
 */
import { EventEmitter } from 'node:events';
import { Link, type LinkController, type Llid, MAX_DATA_OCTETS, type PduRecord } from './link';

export interface Advertiser extends LinkController {
  /** The address it advertises and initiates from (its random address when the host chose one). */
  readonly ownAddress: string;
  /** The advertising this controller is doing now, if any. */
  advertising(): { addressType: number; type: number; data: Buffer; scanResponse: Buffer } | undefined;
  /** An LE Create Connection the host is waiting on, if any. */
  initiating(): { peerAddress: string; peerAddressType: number; interval: number; latency: number; timeout: number } | undefined;
  scanning(): { active: boolean } | undefined;
  hear(from: string, addressType: number, reportType: number, data: Buffer, rssi: number): void;
  connected(link: Link, role: 'central' | 'peripheral'): void;
  allocateHandle(): number;
}

export interface AirOptions {
  /** How often scanners hear the advertisers (wall-clock ms). */
  advertisingEventMs?: number;
  /** RSSI scanners report when no pair-specific value was set. */
  defaultRssi?: number;
}

export interface AirEvents {
  pdu: [PduRecord];
  connect: [Link];
  disconnect: [Link, number];
}

interface Pending {
  link: Link;
  from: LinkController;
  pdus: Array<{ llid: Llid; data: Buffer }>;
  done: () => void;
}

export class VirtualAir extends EventEmitter<AirEvents> {
  private readonly controllers = new Set<Advertiser>();
  private readonly rssiByPair = new Map<string, number>();
  private readonly apartPairs = new Set<string>();
  private readonly queue: Pending[] = [];
  private pumping = false;
  private timer: NodeJS.Timeout | undefined;
  private nextAddress = 1;
  readonly links = new Set<Link>();
  /** Every PDU carried, in order (tests read figures and pacing from it). */
  readonly pdus: PduRecord[] = [];
  recordPdus = false;
  /** When set, each PDU waits this long (ms) before it reaches the other controller: a crude airtime for benches. */
  pduDelayMs: ((octets: number) => number) | undefined;
  private readonly advertisingEventMs: number;
  private readonly defaultRssi: number;

  constructor(options: AirOptions = {}) {
    super();
    this.advertisingEventMs = options.advertisingEventMs ?? 25;
    this.defaultRssi = options.defaultRssi ?? -50;
  }

  /** A fresh public BD_ADDR for a new controller. */
  allocateAddress(): string {
    const n = this.nextAddress++;
    return `c0:de:00:00:${((n >> 8) & 0xff).toString(16).padStart(2, '0')}:${(n & 0xff).toString(16).padStart(2, '0')}`;
  }

  join(controller: Advertiser): void {
    this.controllers.add(controller);
  }

  leave(controller: Advertiser): void {
    this.controllers.delete(controller);
  }

  /** The two controllers are out of each other's range: neither hears the other's advertising (nor connects to it). */
  apart(a: string, b: string): void {
    this.apartPairs.add(`${a}|${b}`);
    this.apartPairs.add(`${b}|${a}`);
  }

  setRssi(a: string, b: string, rssi: number): void {
    this.rssiByPair.set(`${a}|${b}`, rssi);
    this.rssiByPair.set(`${b}|${a}`, rssi);
  }

  /** Something that changes who hears whom happened: hear now, and keep hearing while anyone scans or initiates. */
  stir(): void {
    setImmediate(() => this.event());
    const busy = [...this.controllers].some((c) => c.scanning() !== undefined || c.initiating() !== undefined);
    if (busy && this.timer === undefined) {
      this.timer = setInterval(() => this.event(), this.advertisingEventMs);
      this.timer.unref();
    } else if (!busy && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One advertising event of every advertiser: scanners hear it, initiators connect to it. */
  private event(): void {
    for (const adv of this.controllers) {
      const ad = adv.advertising();
      if (ad === undefined) continue;
      for (const other of this.controllers) {
        if (other === adv || this.apartPairs.has(`${adv.address}|${other.address}`)) continue;
        const init = other.initiating();
        const connectable = ad.type === 0x00 || ad.type === 0x01;
        if (init !== undefined && connectable && init.peerAddress === adv.ownAddress && init.peerAddressType === ad.addressType) {
          this.connect(other, adv, init);
          break;
        }
        const scan = other.scanning();
        if (scan === undefined) continue;
        const rssi = this.rssiByPair.get(`${adv.address}|${other.address}`) ?? this.defaultRssi;
        other.hear(adv.ownAddress, ad.addressType, ad.type, ad.data, rssi);
        const scannable = ad.type === 0x00 || ad.type === 0x02;
        if (scan.active && scannable) other.hear(adv.ownAddress, ad.addressType, 0x04, ad.scanResponse, rssi);
      }
    }
    this.stopTimerWhenIdle();
  }

  private stopTimerWhenIdle(): void {
    const busy = [...this.controllers].some((c) => c.scanning() !== undefined || c.initiating() !== undefined);
    if (!busy && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private connect(central: Advertiser, peripheral: Advertiser, init: { interval: number; latency: number; timeout: number }): void {
    const link = new Link(
      { controller: central, handle: central.allocateHandle(), wantTxOctets: 27 },
      { controller: peripheral, handle: peripheral.allocateHandle(), wantTxOctets: 27 },
      init.interval,
      init.latency,
      init.timeout,
    );
    this.links.add(link);
    // Order as on air: the peripheral's controller sees CONNECT_IND first, the central's reports after it sent it.
    peripheral.connected(link, 'peripheral');
    central.connected(link, 'central');
    this.emit('connect', link);
    this.stir();
  }

  /** Carries one host ACL packet's PDUs from `from` to the link's other end, in order; `done` once all arrived. */
  transmit(link: Link, from: LinkController, pdus: Array<{ llid: Llid; data: Buffer }>, done: () => void): void {
    this.queue.push({ link, from, pdus, done });
    if (!this.pumping) {
      this.pumping = true;
      setImmediate(() => this.pump());
    }
  }

  private pump(): void {
    const item = this.queue.shift();
    if (item === undefined) {
      this.pumping = false;
      return;
    }
    const deliver = (): void => {
      if (item.link.open) {
        const to = item.link.other(item.from);
        for (const pdu of item.pdus) {
          const record: PduRecord = { at: performance.now(), from: item.from.address, to: to.controller.address, llid: pdu.llid, data: pdu.data };
          if (this.recordPdus) this.pdus.push(record);
          this.emit('pdu', record);
          to.controller.deliverPdu(to.handle, pdu.llid, pdu.data);
        }
        item.done();
      }
      setImmediate(() => this.pump());
    };
    const delay = this.pduDelayMs === undefined ? 0 : item.pdus.reduce((sum, p) => sum + (this.pduDelayMs?.(p.data.length) ?? 0), 0);
    if (delay > 0) setTimeout(deliver, delay);
    else deliver();
  }

  /** A host ended the link (HCI_Disconnect): its own controller reports 0x16, the other end the host's reason. */
  terminate(link: Link, by: LinkController, reason: number): void {
    if (!this.close1(link)) return;
    const other = link.other(by);
    link.end(by).controller.linkClosed(link.end(by).handle, 0x16);
    other.controller.linkClosed(other.handle, reason);
    this.emit('disconnect', link, reason);
  }

  /** The link is gone from the air (out of range, a controller died): each end still there reports `reason`. */
  drop(link: Link, reason = 0x08, except?: LinkController): void {
    if (!this.close1(link)) return;
    for (const end of [link.central, link.peripheral]) if (end.controller !== except) end.controller.linkClosed(end.handle, reason);
    this.emit('disconnect', link, reason);
  }

  /** Drops every link of a controller (reset, power off, host death); the other ends see a supervision timeout. */
  dropAll(controller: LinkController): void {
    for (const link of [...this.links]) if (link.central.controller === controller || link.peripheral.controller === controller) this.drop(link, 0x08, controller);
  }

  renegotiate(link: Link): void {
    if (!link.renegotiate(MAX_DATA_OCTETS)) return;
    link.central.controller.dataLengthChanged(link.central.handle, link.centralToPeripheralOctets, link.peripheralToCentralOctets);
    link.peripheral.controller.dataLengthChanged(link.peripheral.handle, link.peripheralToCentralOctets, link.centralToPeripheralOctets);
  }

  update(link: Link, interval: number, latency: number, timeout: number): void {
    link.interval = interval;
    link.latency = latency;
    link.timeout = timeout;
    for (const end of [link.central, link.peripheral]) end.controller.connectionUpdated(end.handle, interval, latency, timeout);
  }

  private close1(link: Link): boolean {
    if (!link.open) return false;
    link.open = false;
    this.links.delete(link);
    // PDUs still queued on a closed link are lost with it.
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].link === link) this.queue.splice(i, 1);
    return true;
  }
}
