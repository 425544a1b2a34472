/**
 * One LE connection in the virtual air: two ends (central and peripheral), each a controller and the handle that
 * controller gave the link, with the data length each direction carries and a FIFO of link-layer PDUs per direction.
 *
 * A host's ACL packet becomes link-layer data PDUs (LLID "start" for a packet that begins an L2CAP PDU, "continue"
 * otherwise), cut to the negotiated maximum; the other controller hands each PDU to its host as one ACL packet,
 * flagged "first automatically flushable" or "continuing" as the spec's HCI-to-LL mapping says (Vol 4 Part E 5.4.2,
 * Vol 6 Part B 2.4). That is where the hosts' own L2CAP reassembly gets exercised.
 */

/** Vol 6 Part B 4.5.10: the smallest and largest LE data channel PDU payload. */
export const MIN_DATA_OCTETS = 27;
export const MAX_DATA_OCTETS = 251;

/** Vol 6 Part B 4.5.10: the time one PDU of `octets` payload takes on the LE 1M PHY, in µs. */
export function pduTimeUs(octets: number): number {
  return (octets + 14) * 8;
}

export type Llid = 'start' | 'continue';

export interface LinkEnd {
  readonly controller: LinkController;
  readonly handle: number;
  /** What this end's host asked for with LE Set Data Length (or the default). */
  wantTxOctets: number;
}

/** What a link needs from a controller: the air calls these, never the host side. */
export interface LinkController {
  readonly address: string;
  deliverPdu(handle: number, llid: Llid, data: Buffer): void;
  linkClosed(handle: number, reason: number): void;
  dataLengthChanged(handle: number, txOctets: number, rxOctets: number): void;
  connectionUpdated(handle: number, interval: number, latency: number, timeout: number): void;
}

export interface PduRecord {
  /** `performance.now()` when the PDU reached the receiving controller. */
  at: number;
  from: string;
  to: string;
  llid: Llid;
  data: Buffer;
}

export class Link {
  open = true;
  /** The effective data length of each direction (Vol 6 Part B 4.5.10: min of sender's max tx and receiver's max rx). */
  centralToPeripheralOctets = MIN_DATA_OCTETS;
  peripheralToCentralOctets = MIN_DATA_OCTETS;

  constructor(
    readonly central: LinkEnd,
    readonly peripheral: LinkEnd,
    public interval: number,
    public latency: number,
    public timeout: number,
  ) {}

  other(controller: LinkController): LinkEnd {
    return controller === this.central.controller ? this.peripheral : this.central;
  }

  end(controller: LinkController): LinkEnd {
    return controller === this.central.controller ? this.central : this.peripheral;
  }

  octetsFrom(controller: LinkController): number {
    return controller === this.central.controller ? this.centralToPeripheralOctets : this.peripheralToCentralOctets;
  }

  /** Recomputes both directions from what each end asked for; true when either changed. */
  renegotiate(maxRx: number): boolean {
    const c2p = Math.max(MIN_DATA_OCTETS, Math.min(this.central.wantTxOctets, maxRx));
    const p2c = Math.max(MIN_DATA_OCTETS, Math.min(this.peripheral.wantTxOctets, maxRx));
    const changed = c2p !== this.centralToPeripheralOctets || p2c !== this.peripheralToCentralOctets;
    this.centralToPeripheralOctets = c2p;
    this.peripheralToCentralOctets = p2c;
    return changed;
  }

  /** Cuts one ACL packet's payload into link-layer PDUs of at most `octets` bytes. */
  static segment(data: Buffer, firstLlid: Llid, octets: number): Array<{ llid: Llid; data: Buffer }> {
    const out: Array<{ llid: Llid; data: Buffer }> = [];
    if (data.length === 0) return [{ llid: firstLlid, data }];
    for (let at = 0; at < data.length; at += octets) {
      out.push({ llid: at === 0 ? firstLlid : 'continue', data: data.subarray(at, Math.min(at + octets, data.length)) });
    }
    return out;
  }
}
