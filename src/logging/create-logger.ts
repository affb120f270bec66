import { type DestinationStream, type Logger, pino } from 'pino';

export interface CreateLoggerOptions {
  readonly level: string;
  /** Secret values to scrub from every line (tokens, keys) besides the redacted field paths. */
  readonly secrets?: readonly string[];
  readonly destination?: DestinationStream;
}

/** Field paths that never reach a log line in clear. */
export const REDACT_PATHS = [
  '*.api_key',
  '*.apiKey',
  '*.token',
  '*.bot_token',
  '*.secret',
  '*.password',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers["x-telegram-bot-api-secret-token"]',
];

export function createLogger(options: CreateLoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      ...(secrets.length === 0
        ? {}
        : { hooks: { streamWrite: (line: string) => redactSecrets(line, secrets) } }),
    },
    options.destination,
  );
}

/** Replaces each occurrence of each secret value with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}
