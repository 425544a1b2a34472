/** The hub client's `HubLogger` over the gateway's pino logger (the client never hands it a token). */
import type { Logger } from 'pino';
import type { HubLogger } from '../../../lib/hub/options';

export function hubLogger(logger: Logger): HubLogger {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
