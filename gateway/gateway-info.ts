/** Who this gateway is, as extensions, the send handlers and the status page name it. */
export interface GatewayInfo {
  /** The short id in topics and Home Assistant (config `gateway.id`, default the address). */
  id: string;
  name: string;
  address: string;
  version: string;
  startedAt: number;
}
