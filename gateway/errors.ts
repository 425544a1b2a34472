/**
 * The errors of the gateway process: configuration, identity, state folder, MQTT bridge. Codes are stable strings
 * listed in docs/gateway.md; the message names the path or setting involved and never carries a secret. The codes
 * are a closed union, so a misspelt one fails to compile rather than reach an operator's alert rule.
 */
import { CodedError } from '../lib/coded-error';

export type GatewayErrorCode =
  | 'ALREADY_STARTED'
  | 'NOT_STARTED'
  | 'EXTENSION_MISSING'
  | 'CONFIG_READ'
  | 'CONFIG_YAML'
  | 'CONFIG_INVALID'
  | 'IDENTITY_READ'
  | 'IDENTITY_INVALID'
  | 'STORE_DRIVER'
  | 'MQTT_DISCONNECTED'
  | 'MQTT_PUBLISH_REFUSED'
  | 'MQTT_TLS_FILE'
  | 'CLAIM_TOO_LATE'
  | 'NO_ROUTE'
  | 'BAD_SENDER'
  | 'SEND_BAD_JSON'
  | 'SEND_BAD_REQUEST_ID'
  | 'SEND_BAD_RECIPIENT'
  | 'SEND_BAD_HOP_COUNT'
  | 'SEND_RATE_LIMITED'
  | 'SEND_POLICY_TTL'
  | 'SEND_POLICY_RESERVED'
  | 'SEND_POLICY_RECIPIENT'
  | 'SEND_POLICY_PRIORITY'
  | 'SEND_POLICY_APP_ID';

export class GatewayError extends CodedError<GatewayErrorCode> {}

/**
 * A send request refused by lib/mesh's own checks (a field code such as `BAD_IDENTIFIER`), carried with the code it
 * came with so that `B/send/result` names the field rule, plus the request's id.
 */
export class SendRefusal extends CodedError {}
