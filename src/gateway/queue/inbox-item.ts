import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { isJsonValue } from '../../lib/is-json-value.js';
import type { InboxItem, JsonValue } from './turn-queue.js';

const itemFields = {
  sessionKey: z.string().min(1),
  eventId: z.string().min(1),
  kind: z.enum(['message', 'resume']),
  text: z.string().optional(),
  receivedAt: z.number(),
  steerable: z.boolean().optional(),
  dedupe: z.boolean().optional(),
  solo: z.boolean().optional(),
};

/** At the producer: the payload must be JSON (it crosses process boundaries as JSON). */
const inboxItemSchema = z
  .object({
    ...itemFields,
    payload: z
      .custom<JsonValue>(
        isJsonValue,
        'payload must be JSON: plain objects, arrays, strings, finite numbers, booleans, null',
      )
      .optional(),
  })
  .strict();

/** From the wire: the payload came out of JSON.parse, so it is JSON by construction. */
const wireItemSchema = z.object({ ...itemFields, payload: z.unknown().optional() }).strict();

/** Checks an item at the producer boundary; returns a plain copy (no extra keys). */
export function parseInboxItem(value: unknown): InboxItem {
  return checkItem(inboxItemSchema, value);
}

function checkItem(schema: typeof inboxItemSchema | typeof wireItemSchema, value: unknown): InboxItem {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new HermesError('queue_failed', `invalid inbox item: ${z.prettifyError(result.error)}`);
  }
  const { payload, text, steerable, dedupe, solo, ...rest } = result.data;
  return {
    ...rest,
    ...(steerable === undefined ? {} : { steerable }),
    ...(dedupe === undefined ? {} : { dedupe }),
    ...(solo === undefined ? {} : { solo }),
    ...(text === undefined ? {} : { text }),
    ...(payload === undefined ? {} : { payload: payload as JsonValue }),
  };
}

/** Only user messages steer or interrupt a running turn; a resume or a solo item always waits its turn. */
export function isSteerable(item: InboxItem): boolean {
  return item.kind === 'message' && item.steerable !== false && item.solo !== true;
}

/**
 * Wire form for Redis: one marker character (`m` steerable, `s` solo, `r` neither) then the
 * JSON, so Lua scripts can tell the kinds apart without decoding.
 */
export function encodeInboxItem(item: InboxItem): string {
  const marker = item.solo === true ? 's' : isSteerable(item) ? 'm' : 'r';
  return marker + JSON.stringify(item);
}

/**
 * How many waiting items the next turn takes: a solo item alone, otherwise every item up to
 * (not including) the next solo one. The Lua `start_next` of the BullMQ queue applies the same rule.
 */
export function nextTurnLength(items: readonly InboxItem[]): number {
  if (items.length === 0) return 0;
  if (items[0]?.solo === true) return 1;
  let count = 0;
  while (count < items.length && items[count]?.solo !== true) count += 1;
  return count;
}

export function decodeInboxItem(wire: string): InboxItem {
  return checkItem(wireItemSchema, JSON.parse(wire.slice(1)));
}

/** Leading run of steerable items: what a steering turn may take without breaking order. */
export function steerablePrefixLength(items: readonly InboxItem[]): number {
  let count = 0;
  while (count < items.length && isSteerable(items[count]!)) count += 1;
  return count;
}
