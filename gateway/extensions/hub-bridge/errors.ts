/**
 * Errors of the hub bridge: its configuration and the conversions between mesh messages and hub messages. Codes are
 * stable (docs/hub-bridge.md lists them); messages name the setting or field and never carry the token.
 */
import { CodedError } from '../../../lib/coded-error';

export type HubBridgeErrorCode =
  | 'HUB_CONFIG_INVALID'
  | 'MEDIA_ABORTED'
  | 'MEDIA_BAD_URL'
  | 'MEDIA_DEADLINE'
  | 'MEDIA_HTTP'
  | 'MEDIA_NETWORK'
  | 'MEDIA_TIMEOUT'
  | 'MEDIA_TOO_LARGE';

/** Codes are a closed union: a misspelt one fails to compile. */
export class HubBridgeError extends CodedError<HubBridgeErrorCode> {}
