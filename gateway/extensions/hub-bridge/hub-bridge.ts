/**
 * The hub bridge: mesh messages into ClawlingChat Message Hub chats and hub messages back into the mesh, by the rules
 * of the `hub:` section (docs/hub-bridge.md). One `HubClient` with the gateway's store, so its outbox, inbox dedup and
 * device id survive restarts like the MQTT outbox does.
 *
 *   mesh → hub: rule match → convert (text, reply, media; chunked files through the durable file intake) →
 *     `msg-` + Crockford(id) as `message_id` → client outbox → `message.ack` → the mesh ACK may go (a delivery claim,
 *     the same mechanism the MQTT bridge holds ACKs with until PUBACK).
 *   hub → mesh: rule match → one durable job per recipient, written by an inbound persister inside the client's
 *     inbox commit (so no crash can fall between the two) → the client tells the hub → text message and chunked
 *     media from the gateway's address → done when the recipient ACKs.
 *
 * Loops are cut on both sides: hub messages of the bridge's own account (any of its devices, so a second gateway on
 * the same account too) or with an id this bridge made never go back into the mesh, and mesh messages a bridge
 * re-originated from a hub (metadata `hub_message_id`) never go back to the hub.
 */
import { isInternalContent } from '../../../lib/mesh/control-prefixes';
import type { InboundMessage, HubStatus } from '../../../lib/hub/events';
import { HubClient } from '../../../lib/hub/client';
import type { InboundPersistContext } from '../../../lib/hub/receive/inbound-persister';
import type { Clock, TimerHandle } from '../../../lib/clock';
import type { MeshMessageEvent } from '../../bus';
import { redactUrl } from '../../../lib/redact';
import { Extension, type ExtensionContext } from '../../extension';
import type { Counter } from '../../metrics';
import { resolveBridgeConfig, type BridgeConfig, type MeshToHubRule } from './bridge-config';
import { readHubSettings } from './read-settings';
import { FileIntake, type WholeFile } from './file-intake';
import { hubLogger } from './hub-logger';
import { HubSends, type Settle } from './hub-sends';
import { jobsFor } from './hub-to-mesh';
import { HubUploads } from './hub-uploads';
import { MeshDelivery } from './mesh-delivery';
import { fileCaption, meshSkipReason, planMeshToHub } from './mesh-to-hub';
import { hubMessageIdFor, meshIdFromHubMessageId } from './message-ids';
import { OriginMap } from './origin-map';
import { hubTargetsFor, meshRouteFor, type ReplyOrigin } from './routes';
import { ToMeshQueue } from './to-mesh-queue';

const ORIGINS_CAPACITY = 10_000;
const FILE_SWEEP_MS = 60_000;

export class HubBridge extends Extension {
  readonly name = 'hub-bridge';
  readonly settings: BridgeConfig;
  private clientValue: HubClient | undefined;
  private sends: HubSends | undefined;
  private uploads: HubUploads | undefined;
  private origins: OriginMap | undefined;
  private intake: FileIntake | undefined;
  private toMesh: ToMeshQueue | undefined;
  private sweepTimer: unknown;
  private stopping = false;
  private removePersister: (() => void) | undefined;
  private readonly c: { bridged: Counter; skipped: Counter; toMeshFailed: Counter; held: Counter; states: Counter };

  constructor(ctx: ExtensionContext) {
    super(ctx);
    this.settings = resolveBridgeConfig(readHubSettings(ctx.config.hub), ctx.config.gateway.app_id);
    const m = ctx.metrics;
    this.c = {
      bridged: m.counter('clawling_gateway_hub_bridged_total', 'Messages handed to the hub or to the mesh by the hub bridge, by direction.'),
      skipped: m.counter('clawling_gateway_hub_skipped_total', 'Messages a hub rule matched but the bridge did not carry, by reason.'),
      toMeshFailed: m.counter('clawling_gateway_hub_to_mesh_failed_total', 'Hub messages given up without a mesh ACK, or dropped from a full queue, by reason.'),
      held: m.counter('clawling_gateway_hub_acks_held_total', 'Mesh ACKs that waited for the hub, by outcome (delivered / not delivered).'),
      states: m.counter('clawling_gateway_hub_state_changes_total', 'Hub connection state changes, by state.'),
    };
  }

  /** The hub client (tests, the demo, the status of the bridge). */
  get client(): HubClient {
    if (!this.clientValue) throw new Error('the hub bridge has not been started');
    return this.clientValue;
  }

  /** Hub messages still on their way into the mesh. */
  get toMeshDepth(): number {
    return this.toMesh?.depth ?? 0;
  }

  /** Resolves once every hub message taken so far has reached the mesh or been given up. */
  whenToMeshEmpty(): Promise<void> {
    return this.toMesh?.whenEmpty() ?? Promise.resolve();
  }

  override async start(): Promise<void> {
    const { store, logger, clock, bus, queues, metrics } = this.ctx;
    const cfg = this.settings;
    const hubClock: Clock = {
      now: () => clock.now(),
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms) as TimerHandle,
      clearTimeout: (h) => {
        if (h !== undefined) clock.clearTimeout(h);
      },
    };
    const client = new HubClient({
      url: cfg.url,
      token: cfg.token,
      userId: cfg.userId,
      ...(cfg.deviceId !== undefined ? { deviceId: cfg.deviceId } : {}),
      store,
      clock: hubClock,
      reliability: cfg.reliability,
      ackTimeoutMs: cfg.ackTimeoutMs,
      sendExpiryMs: cfg.sendExpiryMs,
      maxInFlight: cfg.maxInFlight,
      // The takeover floor stays below the cap whatever the operator chose.
      backoff: { initialMs: cfg.reconnect.initialMs, maxMs: cfg.reconnect.maxMs, takeoverFloorMs: Math.min(5000, cfg.reconnect.maxMs) },
      outboxCapacity: cfg.outboxCapacity,
      logger: hubLogger(logger),
    });
    this.clientValue = client;
    const sends = new HubSends(client, (messageId, err) =>
      logger.warn({ hub_message_id: messageId, code: (err as { code?: string }).code }, 'the hub client refused a send; the mesh message is not ACKed'),
    );
    this.sends = sends;
    this.uploads = new HubUploads({ mediaUrl: cfg.mediaUrl, token: cfg.token, maxBytes: cfg.files.max_upload_bytes, clock, logger, sends });
    this.origins = new OriginMap(store, ORIGINS_CAPACITY, clock);
    this.intake = new FileIntake(store, { maxFileSize: cfg.files.max_upload_bytes, now: () => clock.now() });
    const delivery = new MeshDelivery({
      mesh: this.ctx.mesh,
      logger,
      maxFetchBytes: cfg.files.max_fetch_bytes,
      fetchTimeoutMs: cfg.files.fetch_timeout_ms,
      fetchDeadlineMs: cfg.files.fetch_deadline_ms,
      chunkProfile: cfg.files.chunk_profile,
      now: () => clock.now(),
    });
    this.toMesh = new ToMeshQueue(
      store,
      {
        capacity: cfg.toMesh.queue_max_entries,
        concurrency: cfg.toMesh.concurrency,
        maxAttempts: cfg.toMesh.max_attempts,
        retryMinMs: cfg.toMesh.retry_min_ms,
        retryMaxMs: cfg.toMesh.retry_max_ms,
      },
      {
        deliver: (job, progress, signal) => delivery.deliver(job, progress, signal),
        onDone: () => this.c.bridged.inc({ direction: 'hub_to_mesh' }),
        onFailed: (job, reason) => {
          this.c.toMeshFailed.inc({ reason: 'no_ack' });
          logger.warn({ hub_message_id: job.hubMessageId, recipient: job.recipient, reason }, 'hub message given up for the mesh');
        },
        onDropped: (job) => {
          this.c.toMeshFailed.inc({ reason: 'queue_full' });
          logger.warn({ hub_message_id: job.hubMessageId, recipient: job.recipient }, 'to-mesh queue full: the oldest hub message was dropped');
        },
      },
      clock,
    );

    queues.register('hub', () => {
      const s = client.stats();
      return { depth: s.outbox, dropped: 0, inflight: s.inFlight };
    });
    queues.register('hub-to-mesh', () => ({ depth: this.toMesh?.depth ?? 0, dropped: this.toMesh?.dropped ?? 0, inflight: this.toMesh?.inflight ?? 0 }));
    queues.register('hub-files', () => ({ depth: this.intake?.depth ?? 0, dropped: 0 }));
    metrics.gauge('clawling_gateway_hub_connected', '1 while the hub connection is live (connected or replaying).', () =>
      client.state === 'connected' || client.state === 'replaying' ? 1 : 0,
    );
    metrics.gauge('clawling_gateway_hub_acked_total', 'Bridge sends the hub acknowledged (message.ack).', () => sends.counters.acked);
    metrics.gauge('clawling_gateway_hub_rejected_total', 'Bridge sends the hub refused (message.error) or the client gave up.', () => sends.counters.rejected + sends.counters.refused);

    for (const file of this.intake.open()) this.resumeFile(file);
    this.toMesh.open();
    bus.on('meshMessage', this, (e) => this.onMesh(e));
    bus.on('peerChange', this, (e) => {
      if (e.change === 'up') this.toMesh?.wake();
    });
    this.removePersister = client.addInboundPersister((m, tx) => this.onHub(m, tx));
    client.on('state', (s) => this.onState(s));
    client.start();
    this.armSweep();
    logger.info({ url: redactUrl(cfg.url), user_id: cfg.userId, mesh_to_hub: cfg.meshToHub.length, hub_to_mesh: cfg.hubToMesh.length }, 'hub bridge started');
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    await super.stop();
    if (this.sweepTimer !== undefined) this.ctx.clock.clearTimeout(this.sweepTimer);
    const client = this.clientValue;
    if (client) await this.drain(client, this.ctx.config.gateway.shutdown_timeout_ms);
    this.toMesh?.stop();
    this.uploads?.stop();
    this.origins?.flush();
    this.sends?.close();
    if (client) await client.stop();
    this.removePersister?.();
    for (const q of ['hub', 'hub-to-mesh', 'hub-files']) this.ctx.queues.unregister(q);
  }

  // ─── mesh → hub ──────────────────────────────────────────────────────────────────────────────────────────────

  private onMesh(e: MeshMessageEvent): void {
    const message = e.message;
    if (message.sender === this.ctx.mesh.address) return;
    const rule = meshRouteFor(this.settings.meshToHub, message, { toGateway: e.toGateway });
    if (rule === undefined) return;
    if (message.content_type === 'file_chunk') {
      this.onChunk(e, rule);
      return;
    }
    const hubId = hubMessageIdFor(message.id);
    if (e.duplicate) {
      // A resend: its ACK waits for the same answer as the first copy, if that one is still owed.
      if (e.delivery && this.uploads!.has(hubId)) this.uploads!.attach(hubId, this.hold(e));
      return;
    }
    const plan = planMeshToHub(message, e.senderVerified, { label: rule.label, unverified: rule.unverified, names: this.settings.senderNames });
    if ('skip' in plan) {
      this.c.skipped.inc({ reason: plan.skip });
      return;
    }
    const settle = e.delivery ? this.hold(e) : undefined;
    this.origins!.record(hubId, { sender: message.sender, appId: message.app_id });
    this.c.bridged.inc({ direction: 'mesh_to_hub' });
    if (plan.upload) {
      this.uploads!.start(
        {
          chatId: rule.chatId,
          messageId: hubId,
          fragments: plan.fragments,
          ...(plan.replyTo ? { replyTo: plan.replyTo } : {}),
          data: plan.upload.data,
          name: plan.upload.name,
          mime: plan.upload.mime,
        },
        settle,
      );
      return;
    }
    this.sends!.send({ chatId: rule.chatId, messageId: hubId, fragments: plan.fragments, ...(plan.replyTo ? { replyTo: plan.replyTo } : {}) }, settle);
  }

  /**
   * A chunk is ACKed once it is in the store (the sender's window needs that); the last one, which makes the file
   * whole, only once the file's hub message is acknowledged.
   */
  private onChunk(e: MeshMessageEvent, rule: MeshToHubRule): void {
    const skip = meshSkipReason(e.message) ?? (rule.unverified === 'skip' ? 'unverified_sender' : undefined);
    if (skip !== undefined) {
      this.c.skipped.inc({ reason: skip });
      return;
    }
    let result;
    try {
      result = this.intake!.accept(e.message);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'FILE_CHUNK_REFUSED';
      if (code === 'FILE_TRANSFER_COMPLETE') {
        // A late copy of the chunk that made a file whole: it waits for that file's hub message like the first copy.
        this.attachToFile(e);
        return;
      }
      this.c.skipped.inc({ reason: code === 'ENCRYPTED_FILE_CHUNK' ? 'encrypted_media' : 'file_refused' });
      this.ctx.logger.debug({ code, id: e.message.id.toString() }, 'file chunk not taken for the hub');
      return;
    }
    if (result.status === 'progress') return;
    const file = result.file;
    const hubId = hubMessageIdFor(file.firstChunkId);
    this.lastChunkOf.set(e.message.id.toString(), hubId);
    this.origins!.record(hubId, { sender: file.sender, appId: e.message.app_id });
    this.c.bridged.inc({ direction: 'mesh_to_hub' });
    this.sendFile(file, rule, hubId, e.delivery ? this.hold(e) : undefined);
  }

  /** Last chunks of files whose hub message is still owed → that message's id (for their resends). */
  private readonly lastChunkOf = new Map<string, string>();

  private attachToFile(e: MeshMessageEvent): void {
    if (!e.delivery) return;
    const hubId = this.lastChunkOf.get(e.message.id.toString());
    if (hubId !== undefined && this.uploads!.has(hubId)) this.uploads!.attach(hubId, this.hold(e));
  }

  private sendFile(file: WholeFile, rule: MeshToHubRule | undefined, hubId: string, settle: Settle | undefined): void {
    const route = rule ?? this.routeOfFile(file);
    const chatId = route?.chatId;
    if (chatId === undefined) {
      // The rules changed since the file arrived: nothing to send it to any more.
      this.intake!.release(file.fileId);
      settle?.(true);
      return;
    }
    const lastId = file.lastChunk.id.toString();
    this.uploads!.start(
      {
        chatId,
        messageId: hubId,
        fragments: fileCaption(file.sender, { label: route?.label ?? 'name', unverified: route?.unverified ?? 'mark', names: this.settings.senderNames }),
        data: file.data,
        name: file.fileName,
        mime: file.mediaMetadata?.mime_type,
        onDelivered: () => {
          this.intake?.release(file.fileId);
          this.lastChunkOf.delete(lastId);
        },
      },
      settle,
    );
  }

  /** A file that was whole in the store when the gateway started: its hub message is still owed. */
  private resumeFile(file: WholeFile): void {
    const hubId = hubMessageIdFor(file.firstChunkId);
    this.lastChunkOf.set(file.lastChunk.id.toString(), hubId);
    if (this.sends!.has(hubId)) {
      this.sends!.attach(hubId, (delivered) => {
        if (delivered) this.intake?.release(file.fileId);
      });
      return;
    }
    this.sendFile(file, undefined, hubId, undefined);
  }

  private routeOfFile(file: WholeFile): MeshToHubRule | undefined {
    return meshRouteFor(this.settings.meshToHub, file.lastChunk, { toGateway: file.lastChunk.recipient === this.ctx.mesh.address });
  }

  /** Claims the mesh ACK of a message for the hub: it goes once `settle(true)` is called. */
  private hold(e: MeshMessageEvent): Settle {
    const settle = e.delivery!.claim(this.name);
    return (delivered) => {
      this.c.held.inc({ outcome: delivered ? 'delivered' : 'not_delivered' });
      settle(delivered);
    };
  }

  // ─── hub → mesh ──────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * The hub client's inbound persister: runs inside the transaction that records `m` in the client's inbox, so the
   * to-mesh jobs are written in that same commit (and the hub is acked only after it). Also while stopping: the
   * rows are then sent by the next start. Counters and the start of delivery wait for the commit.
   */
  private onHub(m: InboundMessage, tx: InboundPersistContext): void {
    if (this.settings.hubToMesh.length === 0) return;
    // Drafts and provisional copies are not messages yet; an edit of something already sent cannot be sent again.
    if (!m.isNormalMode || m.streamMerged || m.update) return;
    // Our own account (this gateway from another device, or a second gateway on it), or an id this bridge made.
    if (m.fromSelf || this.origins!.has(m.messageId)) {
      if (this.settings.hubToMesh.some((r) => r.chatId === m.chatId)) tx.afterCommit(() => this.c.skipped.inc({ reason: 'own' }));
      return;
    }
    const replyTo = m.replyToMessageId;
    const origin: ReplyOrigin = replyTo === undefined ? undefined : (this.origins!.get(replyTo) ?? (meshIdFromHubMessageId(replyTo) !== undefined ? 'elsewhere' : undefined));
    const targets = hubTargetsFor(this.settings.hubToMesh, m.chatId, origin).filter((t) => t.recipient !== this.ctx.mesh.address);
    if (targets.length === 0) {
      if (origin === 'elsewhere') tx.afterCommit(() => this.c.skipped.inc({ reason: 'reply_bridged_elsewhere' }));
      return;
    }
    // A hub user's text under a reserved mesh prefix would reach the node as protocol traffic from the gateway's own
    // address (control-messages.md: refused on every public send surface); the whole message stays off the mesh.
    if (isInternalContent(m.text)) {
      tx.afterCommit(() => {
        this.c.skipped.inc({ reason: 'reserved_prefix' });
        this.ctx.logger.warn({ hub_message_id: m.messageId, chat: m.chatId }, 'hub message text begins with a reserved mesh prefix (__…__); not sent into the mesh');
      });
      return;
    }
    const jobs = jobsFor(m, targets, this.ctx.clock.now(), this.settings.toMesh.max_text_bytes).filter((j) => j.text !== '' || j.media.length > 0);
    if (jobs.length === 0) {
      tx.afterCommit(() => this.c.skipped.inc({ reason: 'empty' }));
      return;
    }
    this.toMesh!.persist(jobs, (fn) => tx.afterCommit(fn));
  }

  private onState(s: HubStatus): void {
    this.c.states.inc({ state: s.state });
    const fields = { state: s.state, cause: s.cause, reason: s.reason, retry_in_ms: s.retryInMs, delivery: s.deliveryMode };
    if (s.state === 'auth_failed') this.ctx.logger.error(fields, 'the hub refused the bridge token; set a valid hub.token');
    else if (s.state === 'backoff') this.ctx.logger.warn(fields, 'hub connection lost; retrying');
    else this.ctx.logger.info(fields, 'hub connection state');
  }

  /** On shutdown, give unanswered sends a chance to be answered (bounded), as the MQTT outbox does. */
  private async drain(client: HubClient, timeoutMs: number): Promise<void> {
    if (client.state !== 'connected' || client.stats().outbox === 0 || timeoutMs === 0) return;
    const clock = this.ctx.clock;
    await new Promise<void>((resolve) => {
      const timer = clock.setTimeout(done, timeoutMs);
      function check(): void {
        if (client.stats().outbox === 0 || client.state !== 'connected') done();
      }
      function done(): void {
        clock.clearTimeout(timer);
        client.off('ack', check);
        client.off('rejected', check);
        client.off('state', check);
        resolve();
      }
      client.on('ack', check);
      client.on('rejected', check);
      client.on('state', check);
    });
  }

  private armSweep(): void {
    this.sweepTimer = this.ctx.clock.setTimeout(() => {
      if (this.stopping) return;
      this.intake?.sweep();
      this.armSweep();
    }, FILE_SWEEP_MS);
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new HubBridge(ctx);
}
