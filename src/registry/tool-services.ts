import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';

/**
 * Long-lived dependencies a tool may use, created once by main.ts (or by a test) and handed to
 * the registry. Tool folders that need more (the approval gate, the process table, a model
 * client) add optional fields through declaration merging in their own `*-services.ts` file, so
 * this module never imports a tool. A tool whose service is missing reports itself unavailable.
 */
export interface ToolServices {
  readonly config: Config;
  readonly logger: Logger;
}
