import type { Logger } from 'pino';

/** Longest SDK log line kept. */
const MAX_CHARS = 500;

function textOf(parts: readonly unknown[]): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      if (part instanceof Error) return part.message;
      if (typeof part === 'number' || typeof part === 'boolean') return String(part);
      return '';
    })
    .filter((text) => text !== '')
    .join(' ')
    .replace(/\b(t|u)-[A-Za-z0-9._-]{10,}/g, '$1-[redacted]')
    .slice(0, MAX_CHARS);
}

/**
 * The SDK's logger on ours: only its texts and error messages are kept (never the objects it
 * passes, which may hold request configs with tokens), and tenant tokens are masked.
 */
export function sdkLogger(logger: Logger) {
  const child = logger.child({ component: 'feishu-sdk' });
  return {
    error: (...parts: unknown[]) => child.warn(textOf(parts)),
    warn: (...parts: unknown[]) => child.warn(textOf(parts)),
    info: (...parts: unknown[]) => child.debug(textOf(parts)),
    debug: (...parts: unknown[]) => child.debug(textOf(parts)),
    trace: (...parts: unknown[]) => child.trace(textOf(parts)),
  };
}
