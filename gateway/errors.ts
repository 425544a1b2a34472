/**
 * The errors of the gateway process: configuration, identity, state folder, MQTT bridge. Codes are stable strings
 * listed in docs/gateway.md; the message names the path or setting involved and never carries a secret.
 */
import { CodedError } from '../lib/coded-error';

export class GatewayError extends CodedError {}
