/**
 * The errors of the dev hub. Configuration problems raise `DevHubConfigError` (with every offending path in
 * `details.errors`); admin calls with bad arguments raise `DevHubError` with code `BAD_ADMIN_REQUEST`.
 */
import { CodedError } from '../lib/coded-error';

export class DevHubError extends CodedError {}

export class DevHubConfigError extends DevHubError {}
