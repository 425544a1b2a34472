/**
 * Errors of the hub bridge: its configuration and the conversions between mesh messages and hub messages. Codes are
 * stable (docs/hub-bridge.md lists them); messages name the setting or field and never carry the token.
 */
import { CodedError } from '../../../lib/coded-error';

export class HubBridgeError extends CodedError {}
