/**
 * `@clawling/node-red-mesh/media`: the HTTP media upload of the Message Hub (message-hub-client-guide.md §15).
 *
 *   const fragment = await uploadMedia('photo.jpg', { url: 'https://media.example', token });
 *   // → { kind: 'image', url, name, mime, size, width, height }, ready for `fragments`
 */
export { uploadMedia, uploadMediaDetailed, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from './upload';
export type { UploadOptions, UploadProgress, UploadResult, RetryEvent } from './upload';
export { checkHealth } from './health';
export type { HealthOptions, HealthReport } from './health';
export { MediaError, HUB_ERROR_CATALOGUE } from './errors';
export type { MediaErrorCode, MediaErrorFacts } from './errors';
export { kindForMime } from './fragment';
export type { MediaFragment, MediaKind } from './fragment';
export type { MediaWarning } from './mime-check';
export type { RetryOptions } from './retry';
export type { MediaSource } from './source';
export { sniffMime, mimeMatches } from './sniff';
export { probeMedia, bufferSource, fileSource } from './probe';
export type { ByteSource, MediaFacts } from './probe';
export { mediaBaseUrl, uploadUrl, healthUrl } from './endpoint';
