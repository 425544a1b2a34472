/**
 * `media-upload`: a file to the Message Hub's media service, its fragment out (message-hub-client-guide.md §15).
 * Input: `msg.payload` as a Buffer, or `msg.filename` as a path; `msg.mime` and `msg.name` override the declared
 * type and file name. Output: `msg.payload` = the fragment, for a `hub-out` message's `fragments`.
 * The media URL and token come from the selected `hub-config`; the upload itself is lib/media's.
 */
import path from 'node:path';
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { CodedError } from '../lib/coded-error';
import { DEFAULT_MAX_BYTES, uploadMediaDetailed, type MediaSource, type UploadProgress } from '../lib/media';
import { fail } from './shared/fail';
import { nodeLog } from './shared/log';
import { NodeStatusReporter } from './shared/status';

interface MediaUploadDef extends NodeDef {
  hub: string;
  /** Size limit in MiB (editor field); empty = the hub's default of 100 MiB. */
  maxMiB?: string | number;
  retries?: string | number;
  enrich?: boolean;
}

/** What `media-upload` needs of a `hub-config` node (CONTRACTS.md). */
interface MediaEndpointProvider {
  getMediaEndpoint(): { url: string; token: string };
}

interface MediaUploadMessage extends NodeMessageInFlow {
  filename?: unknown;
  mime?: unknown;
  name?: unknown;
}

/** On redeploy, uploads in flight get this long to finish before they are cancelled (Node-RED waits 15 s). */
const CLOSE_GRACE_MS = 10_000;
const MIB = 1024 * 1024;

function whole(value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

function hasEndpoint(node: unknown): node is MediaEndpointProvider {
  return typeof (node as Partial<MediaEndpointProvider> | null)?.getMediaEndpoint === 'function';
}

export = function (RED: NodeAPI) {
  function MediaUploadNode(this: Node, config: MediaUploadDef): void {
    RED.nodes.createNode(this, config);
    const status = new NodeStatusReporter(this, RED._('media-upload.status.uploaded'), RED._('media-upload.status.failed'));
    const log = nodeLog(this);
    const hub = RED.nodes.getNode(config.hub);
    const maxBytes = Math.round(whole(config.maxMiB, DEFAULT_MAX_BYTES / MIB) * MIB) || DEFAULT_MAX_BYTES;
    const retries = Math.floor(whole(config.retries, 2));
    const enrich = config.enrich !== false;
    const inFlight = new Set<{ controller: AbortController; settled: Promise<void> }>();

    this.on('input', (msg: MediaUploadMessage, send, done) => {
      if (!hasEndpoint(hub)) {
        fail(new CodedError('NO_HUB_CONFIG', RED._('media-upload.errors.no-hub')), status, done);
        return;
      }
      let source: MediaSource;
      if (Buffer.isBuffer(msg.payload)) source = msg.payload;
      else if (typeof msg.filename === 'string' && msg.filename !== '') source = msg.filename;
      else {
        fail(new CodedError('BAD_INPUT', RED._('media-upload.errors.no-input')), status, done);
        return;
      }
      const name = typeof msg.name === 'string' && msg.name !== '' ? msg.name : typeof msg.filename === 'string' && msg.filename !== '' ? path.basename(msg.filename) : undefined;
      const mime = typeof msg.mime === 'string' && msg.mime !== '' ? msg.mime : undefined;
      const endpoint = hub.getMediaEndpoint();
      const controller = new AbortController();
      let lastPercent = -1;
      const onProgress = (p: UploadProgress): void => {
        if (p.total === undefined || p.total === 0) return;
        const percent = Math.floor((p.sent / p.total) * 100);
        if (percent === lastPercent) return;
        lastPercent = percent;
        status.set('blue', 'dot', RED._('media-upload.status.uploading', { percent }));
      };
      const settled = uploadMediaDetailed(source, {
        url: endpoint.url,
        token: endpoint.token,
        mime,
        name,
        maxBytes,
        retry: { retries },
        enrich,
        signal: controller.signal,
        onProgress,
        onRetry: (r) => status.set('yellow', 'ring', RED._('media-upload.status.retrying', { code: r.error.code })),
        onWarning: (w) => log.warn(`${w.code}: ${w.message}`),
      }).then(
        (result) => {
          msg.payload = result.fragment;
          status.passed();
          send(msg);
          done();
        },
        (err: unknown) => fail(err, status, done),
      );
      const entry = { controller, settled };
      inFlight.add(entry);
      void settled.finally(() => inFlight.delete(entry));
    });

    this.on('close', (_removed: boolean, done: () => void) => {
      if (inFlight.size === 0) {
        done();
        return;
      }
      const pending = [...inFlight];
      const timer = setTimeout(() => {
        for (const entry of pending) entry.controller.abort();
      }, CLOSE_GRACE_MS);
      void Promise.allSettled(pending.map((e) => e.settled)).then(() => {
        clearTimeout(timer);
        done();
      });
    });
  }

  RED.nodes.registerType('media-upload', MediaUploadNode);
};
