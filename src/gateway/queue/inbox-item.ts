import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import type { InboxItem, JsonValue } from './turn-queue.js';

const inboxItemSchema = z
  .object({
    sessionKey: z.string().min(1),
    eventId: z.string().min(1),
    kind: z.enum(['message', 'resume']),
    text: z.string().optional(),
    payload: z.json().optional(),
    receivedAt: z.number(),
    steerable: z.boolean().optional(),
    dedupe: z.boolean().optional(),
  })
  .strict();

/** Checks an item at the producer boundary; returns a plain copy (no extra keys). */
export function parseInboxItem(value: unknown): InboxItem {
  const result = inboxItemSchema.safeParse(value);
  if (!result.success) {
    throw new HermesError('queue_failed', `invalid inbox item: ${z.prettifyError(result.error)}`);
  }
  const { payload, text, steerable, dedupe, ...rest } = result.data;
  return {
    ...rest,
    ...(steerable === undefined ? {} : { steerable }),
    ...(dedupe === undefined ? {} : { dedupe }),
    ...(text === undefined ? {} : { text }),
    ...(payload === undefined ? {} : { payload: payload as JsonValue }),
  };
}

/** Only user messages steer or interrupt a running turn; a resume always waits its turn. */
export function isSteerable(item: InboxItem): boolean {
  return item.kind === 'message' && item.steerable !== false;
}

/**
 * Wire form for Redis: one marker character (`m` steerable, `r` not) then the JSON, so Lua
 * scripts can tell the kinds apart without decoding.
 */
export function encodeInboxItem(item: InboxItem): string {
  return (isSteerable(item) ? 'm' : 'r') + JSON.stringify(item);
}

export function decodeInboxItem(wire: string): InboxItem {
  return parseInboxItem(JSON.parse(wire.slice(1)));
}

/** Leading run of steerable items: what a steering turn may take without breaking order. */
export function steerablePrefixLength(items: readonly InboxItem[]): number {
  let count = 0;
  while (count < items.length && isSteerable(items[count]!)) count += 1;
  return count;
}
