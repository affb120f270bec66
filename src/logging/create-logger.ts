import { type DestinationStream, type Logger, pino } from 'pino';
import { redactLogObject } from './redact-log-object.js';
import { scrubLogText, secretSpellings } from './scrub-log-text.js';

export interface CreateLoggerOptions {
  readonly level: string;
  /** Secret values to scrub from every line (tokens, keys: `secretValues(config)`). */
  readonly secrets?: readonly string[];
  readonly destination?: DestinationStream;
}

/**
 * The gateway's pino logger. Nothing secret reaches a line in clear: values under sensitive
 * field or header names are replaced at any depth (`redactLogObject`, on the logged object and
 * on child bindings), and the finished line loses URL credentials, bearer credentials,
 * secret-looking query parameters and every known secret value (`scrubLogText`).
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const spellings = secretSpellings(options.secrets ?? []);
  return pino(
    {
      level: options.level,
      formatters: {
        log: (object) => redactLogObject(object) as Record<string, unknown>,
        bindings: (bindings) => redactLogObject(bindings) as Record<string, unknown>,
      },
      hooks: { streamWrite: (line: string) => scrubLogText(line, spellings) },
    },
    options.destination,
  );
}
