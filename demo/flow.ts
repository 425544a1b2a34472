/**
 * The example flow the demo deploys: examples/gateway-demo.json as shipped, with only the addresses changed when the
 * demo runs on other ports than its defaults (the file itself names the defaults, so importing it by hand works
 * against a default `npm start`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from './node-red-launcher';

export const DEMO_FLOW_FILE = path.join(PACKAGE_ROOT, 'examples', 'gateway-demo.json');

type FlowNode = { id: string; type: string; [key: string]: unknown };

export function demoFlow(o: { hubUrl: string; mediaUrl: string; mqttPort: number }): FlowNode[] {
  const flow = JSON.parse(fs.readFileSync(DEMO_FLOW_FILE, 'utf8')) as FlowNode[];
  for (const node of flow) {
    if (node.type === 'hub-config') Object.assign(node, { url: o.hubUrl, mediaUrl: o.mediaUrl });
    if (node.type === 'mqtt-broker') Object.assign(node, { broker: '127.0.0.1', port: String(o.mqttPort) });
  }
  return flow;
}
