/**
 * The MQTT topic layout (docs/mqtt.md), all under one base (default `clawling/<gateway id>`). One function per topic
 * so that the layout is written down once; ids from the mesh or a radio are escaped into a single topic level.
 */

/** `/`, `+`, `#`, NUL and `%` cannot appear raw in one topic level; they are percent-encoded (`%2F`, …). */
const UNSAFE_IN_LEVEL = new Set(['/', '+', '#', '%', String.fromCharCode(0)]);

function hasUnsafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2f || c === 0x2b || c === 0x23 || c === 0x25 || c === 0) return true;
  }
  return false;
}

export function topicLevel(text: string): string {
  // Addresses and ids, escaped for every message, almost never hold one: no copy for them.
  if (!hasUnsafe(text)) return text;
  let out = '';
  for (const c of text) out += UNSAFE_IN_LEVEL.has(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c;
  return out;
}

export class Topics {
  constructor(readonly base: string) {}

  /** Retained `online`/`offline`; `offline` is the last will. */
  get bridgeState(): string {
    return `${this.base}/bridge/state`;
  }

  /** Retained JSON: uptime, RSS, counters, messages/s, outbox depth. */
  get bridgeHealth(): string {
    return `${this.base}/bridge/health`;
  }

  /** Retained JSON: gateway id, mesh address, version, protocol, radios. */
  get bridgeInfo(): string {
    return `${this.base}/bridge/info`;
  }

  /** JSON or text in: a request to the gateway itself (`restart`, `log_level`), as Zigbee2MQTT's bridge takes them. */
  bridgeRequest(name: string): string {
    return `${this.base}/bridge/request/${topicLevel(name)}`;
  }

  get bridgeRequestFilter(): string {
    return `${this.base}/bridge/request/+`;
  }

  /** JSON out: the answer to each request (`status` ok or error, `data` or `error`). */
  bridgeResponse(name: string): string {
    return `${this.base}/bridge/response/${topicLevel(name)}`;
  }

  /** Retained JSON: the settings Home Assistant's controls show (`log_level`). */
  get bridgeOptions(): string {
    return `${this.base}/bridge/options`;
  }

  /** Every mesh message the gateway receives, JSON floor plus reception fields, QoS 1. */
  get messages(): string {
    return `${this.base}/messages`;
  }

  /** Raw frames as received (binary payload), when `raw_frames` is on. */
  raw(radioId: string): string {
    return `${this.base}/raw/${topicLevel(radioId)}`;
  }

  /** JSON in: a message for the mesh. */
  get send(): string {
    return `${this.base}/send`;
  }

  /** JSON out: what became of each message sent through `send` (accepted, sent, acked, failed). */
  get sendResult(): string {
    return `${this.base}/send/result`;
  }

  /** Retained JSON per radio: state, detail, peer count. */
  radioState(radioId: string): string {
    return `${this.base}/radios/${topicLevel(radioId)}/state`;
  }

  /** Retained JSON per neighbour of a radio: connected, address, wire versions, MTU, RSSI. */
  peer(radioId: string, peerId: string): string {
    return `${this.base}/radios/${topicLevel(radioId)}/peers/${topicLevel(peerId)}`;
  }
}

/**
 * The topics of a site (`mqtt.site`, docs/scaling.md): one downlink that exactly one gateway of the site takes (an
 * MQTT 5 shared subscription), its results, and one retained announcement per gateway so that each sees the others.
 */
export class SiteTopics {
  constructor(
    readonly site: string,
    readonly base: string,
    readonly shareGroup: string,
  ) {}

  /**
   * How a gateway of the site subscribes to `filter` so that one gateway takes each message: the shared
   * subscription on MQTT 5; on 3.1.1 the plain filter for the `v311_owner` and nothing for the others.
   */
  share(filter: string, v311Owner: boolean): (version: 4 | 5) => string | undefined {
    return (version) => (version === 5 ? `$share/${this.shareGroup}/${filter}` : v311Owner ? filter : undefined);
  }

  static of(site: { id: string; topic: string | null; share_group: string | null }): SiteTopics {
    return new SiteTopics(site.id, site.topic ?? `clawling/site/${site.id}`, site.share_group ?? `clawling-${site.id}`);
  }

  /** JSON in: a message for the mesh, taken by one gateway of the site. */
  get send(): string {
    return `${this.base}/send`;
  }

  /** JSON out: what became of each site request, with the gateway that took it. */
  get sendResult(): string {
    return `${this.base}/send/result`;
  }

  /** Retained JSON: a gateway of the site (its bridge info, with its bridge state topic). */
  gateway(gatewayId: string): string {
    return `${this.base}/gateways/${topicLevel(gatewayId)}`;
  }

  get gateways(): string {
    return `${this.base}/gateways/+`;
  }
}
