/**
 * Where the map puts each node: a layered radial layout. The gateway sits in the middle; the nodes it hears
 * directly go on the first ring, the nodes heard through them on the next, and so on, each ring ordered by the
 * angle of the node's parent so that a relayed node sits beyond its relay and links rarely cross. A ring grows when
 * it holds many nodes, so 300 nodes keep a readable spacing; nodes without any link (other gateways of the site)
 * go on an outer ring of their own. Deterministic: the same graph always gives the same picture.
 */

export interface LayoutInput {
  root: string;
  nodes: string[];
  links: Array<{ from: string; to: string }>;
}

export interface Point {
  x: number;
  y: number;
}

const RING_GAP = 140;
const MIN_SPACING = 30;

export function radialLayout(g: LayoutInput): Map<string, Point> {
  const neighbours = new Map<string, string[]>();
  for (const id of g.nodes) neighbours.set(id, []);
  for (const l of g.links) {
    if (!neighbours.has(l.from) || !neighbours.has(l.to) || l.from === l.to) continue;
    neighbours.get(l.from)!.push(l.to);
    neighbours.get(l.to)!.push(l.from);
  }
  // Breadth first from the root: each node's ring is its distance, its parent the first node that reached it.
  const depth = new Map<string, number>([[g.root, 0]]);
  const parent = new Map<string, string>();
  const queue = [g.root];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    for (const next of [...neighbours.get(at)!].sort()) {
      if (depth.has(next)) continue;
      depth.set(next, depth.get(at)! + 1);
      parent.set(next, at);
      queue.push(next);
    }
  }
  const maxDepth = Math.max(0, ...depth.values());
  for (const id of [...g.nodes].sort()) if (!depth.has(id)) depth.set(id, maxDepth + 1);

  const out = new Map<string, Point>([[g.root, { x: 0, y: 0 }]]);
  const angle = new Map<string, number>([[g.root, 0]]);
  for (let ring = 1; ring <= maxDepth + 1; ring++) {
    const members = g.nodes.filter((id) => depth.get(id) === ring);
    if (members.length === 0) continue;
    members.sort((a, b) => (angle.get(parent.get(a) ?? '') ?? 0) - (angle.get(parent.get(b) ?? '') ?? 0) || (a < b ? -1 : 1));
    const radius = Math.max(ring * RING_GAP, (members.length * MIN_SPACING) / (2 * Math.PI));
    const step = (2 * Math.PI) / members.length;
    // The ring is turned so that its nodes sit, on the whole, straight out from their parents (a circular mean);
    // the first ring has only the root as parent and starts at the top.
    let sin = 0;
    let cos = 0;
    members.forEach((id, i) => {
      const want = ring === 1 ? -Math.PI / 2 : (angle.get(parent.get(id) ?? '') ?? -Math.PI / 2);
      sin += Math.sin(want - step * i);
      cos += Math.cos(want - step * i);
    });
    const start = Math.atan2(sin, cos);
    members.forEach((id, i) => {
      const a = start + step * i;
      angle.set(id, a);
      out.set(id, { x: radius * Math.cos(a), y: radius * Math.sin(a) });
    });
  }
  return out;
}
