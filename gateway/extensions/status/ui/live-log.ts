/**
 * The live log behind the web UI: every mesh message in, every frame the gateway sends and every ACK it hears, as
 * one flat JSON entry each, fanned out to Server-Sent-Events clients. Only envelopes travel (never a message's
 * content), so a browser tab cannot become a way to read other people's texts. A client that reads slower than the
 * mesh talks is not buffered without end: once its socket holds more than `maxBufferedBytes` the entries meant for
 * it are dropped and counted, and the count reaches it in the next entry it does get, so the UI can say so.
 */
import type { ServerResponse } from 'node:http';
import type { EventBus, MeshAckEvent, MeshMessageEvent, MeshSentEvent } from '../../../bus';

export type LogDirection = 'in' | 'out' | 'ack';

export interface LogEntry {
  seq: number;
  at: number;
  direction: LogDirection;
  id: string;
  sender: string;
  recipient: string;
  app_id: string;
  content_type?: string;
  radio?: string;
  rssi?: number;
  hop_count?: number;
  sender_verified?: boolean;
  duplicate?: boolean;
  via?: string[];
  origin?: string;
  /** Entries this client missed since its last one, because it read too slowly. */
  dropped?: number;
}

interface Client {
  res: ServerResponse;
  dropped: number;
}

export interface LiveLogOptions {
  now: () => number;
  maxBufferedBytes?: number;
}

export class LiveLog {
  private readonly clients = new Set<Client>();
  private seq = 0;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: LiveLogOptions) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 256 * 1024;
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Listens on the bus under `owner`, so the owner's `offAll` detaches it. */
  attach(bus: EventBus, owner: object): void {
    // An entry is built only for a browser that listens: with none (most of the time) a message costs nothing here.
    bus.on('meshMessage', owner, (e) => {
      if (this.clients.size > 0) this.publish(fromMessage(e));
    });
    bus.on('meshSent', owner, (e) => {
      if (this.clients.size > 0) this.publish(fromSent(e, this.options.now()));
    });
    bus.on('meshAck', owner, (e) => {
      if (this.clients.size > 0) this.publish(fromAck(e));
    });
  }

  /** Turns `res` into an event stream until the browser goes away. */
  subscribe(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // Reverse proxies (nginx, HA ingress) must not hold the stream back.
      'x-accel-buffering': 'no',
    });
    // A comment line first, so the browser's EventSource fires `open` before the mesh says anything.
    res.write(': live log\n\n');
    const client: Client = { res, dropped: 0 };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
  }

  /** Ends every stream (gateway stopping). */
  close(): void {
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }

  private publish(entry: Omit<LogEntry, 'seq'>): void {
    const seq = ++this.seq;
    for (const c of this.clients) {
      if (c.res.writableLength > this.maxBufferedBytes) {
        c.dropped++;
        continue;
      }
      const sent: LogEntry = c.dropped ? { seq, ...entry, dropped: c.dropped } : { seq, ...entry };
      c.dropped = 0;
      // JSON.stringify never yields a raw newline, so one `data:` line is always one whole event.
      c.res.write(`data: ${JSON.stringify(sent)}\n\n`);
    }
  }
}

function fromMessage(e: MeshMessageEvent): Omit<LogEntry, 'seq'> {
  const m = e.message;
  const entry: Omit<LogEntry, 'seq'> = {
    at: e.rx.receivedAt,
    direction: 'in',
    id: e.id,
    sender: m.sender,
    recipient: m.recipient,
    app_id: m.app_id,
    content_type: m.content_type,
    radio: e.rx.radioId,
    hop_count: m.hop_count,
    sender_verified: e.senderVerified,
  };
  if (e.rx.rssi !== undefined) entry.rssi = e.rx.rssi;
  if (e.duplicate) entry.duplicate = true;
  return entry;
}

function fromSent(e: MeshSentEvent, at: number): Omit<LogEntry, 'seq'> {
  const m = e.message;
  return {
    at,
    direction: 'out',
    id: m.id.toString(),
    sender: m.sender,
    recipient: m.recipient,
    app_id: m.app_id,
    content_type: m.content_type,
    hop_count: m.hop_count,
    via: e.via,
    origin: e.origin,
  };
}

function fromAck(e: MeshAckEvent): Omit<LogEntry, 'seq'> {
  const entry: Omit<LogEntry, 'seq'> = {
    at: e.rx.receivedAt,
    direction: 'ack',
    id: e.ackFor,
    sender: e.from,
    recipient: '',
    app_id: '',
    radio: e.rx.radioId,
    hop_count: e.hopCount,
  };
  if (e.rx.rssi !== undefined) entry.rssi = e.rx.rssi;
  return entry;
}
