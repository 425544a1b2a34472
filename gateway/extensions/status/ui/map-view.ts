/**
 * The map's graph, as one JSON document: this gateway, the site's other gateways (from their retained
 * announcements), and every node it hears, with one link per way a radio hears a node: from the gateway when the
 * node is a neighbour (hop 0), from the relaying neighbour's node otherwise; and one from each other gateway of the
 * site that says, on its retained view, that it hears the node. Each link carries its radio, the RSSI
 * when the radio measured one, and when it was last used; placing the graph is the browser's job (webui/map-layout.ts).
 */
import type { GatewaySnapshot } from '../../../extension';
import type { NodeRow } from './node-book';

export const GATEWAY_NODE = 'gateway';

export interface MapNode {
  id: string;
  kind: 'gateway' | 'site-gateway' | 'node';
  label: string;
  address?: string;
  connected: boolean;
  radios: string[];
  verified_share?: number;
  hops_seen?: number[];
}

export interface MapLink {
  from: string;
  to: string;
  radio: string;
  hop_count: number;
  rssi?: number;
  at: number;
}

export interface MapView {
  radios: string[];
  nodes: MapNode[];
  links: MapLink[];
}

export function mapView(s: GatewaySnapshot, rows: NodeRow[]): MapView {
  // The node behind each neighbour link, so a relayed node hangs off the node that relayed it.
  const byLink = new Map<string, string>();
  for (const r of rows) for (const l of r.links) byLink.set(l, r.address);
  for (const n of s.neighbours) if (n.address !== undefined && !byLink.has(`${n.radio}/${n.id}`)) byLink.set(`${n.radio}/${n.id}`, n.address);

  const nodes: MapNode[] = [{ id: GATEWAY_NODE, kind: 'gateway', label: s.gateway.name, address: s.gateway.address, connected: true, radios: s.radios.map((r) => r.id) }];
  for (const g of s.site?.gateways ?? []) {
    if (g.self) continue;
    const other: MapNode = { id: `site:${g.id}`, kind: 'site-gateway', label: g.name ?? g.id, connected: g.state === 'online', radios: [] };
    if (g.address !== undefined) other.address = g.address;
    nodes.push(other);
  }
  const links: MapLink[] = [];
  const onMap = new Set(nodes.map((n) => n.id));
  for (const r of rows) {
    const node: MapNode = { id: r.address, kind: 'node', label: r.name ?? r.address, address: r.address, connected: r.connected, radios: [...new Set(r.heard_by.map((h) => h.radio))].sort(), hops_seen: r.hops_seen };
    if (r.verified_share !== undefined) node.verified_share = r.verified_share;
    nodes.push(node);
    for (const g of r.gateways) {
      // Only gateways the site announced are on the map; a view from an unannounced one has nowhere to start.
      if (!onMap.has(`site:${g.gateway}`)) continue;
      const link: MapLink = { from: `site:${g.gateway}`, to: r.address, radio: `gateway ${g.gateway}`, hop_count: 0, at: g.last_seen ?? 0 };
      if (g.rssi !== undefined) link.rssi = g.rssi;
      links.push(link);
    }
    for (const h of r.heard_by) {
      const relay = h.hop_count === 0 ? undefined : byLink.get(`${h.radio}/${h.peer}`);
      const link: MapLink = { from: relay !== undefined && relay !== r.address ? relay : GATEWAY_NODE, to: r.address, radio: h.radio, hop_count: h.hop_count, at: h.at };
      if (h.rssi !== undefined && h.hop_count === 0) link.rssi = h.rssi;
      links.push(link);
    }
  }
  return { radios: s.radios.map((r) => r.id), nodes, links };
}
