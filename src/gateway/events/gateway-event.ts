import { z } from 'zod';

/**
 * What travels on the event bus: a turn event plus the inbound event ids of the items the turn
 * handled, so the connection that submitted an item can find the answer that belongs to it.
 */
/** Where the turn's answer goes: enough for a chat platform to address it. */
export const eventOriginSchema = z.object({
  platform: z.string(),
  chatType: z.string(),
  chatId: z.string(),
  threadId: z.string().optional(),
  userId: z.string().optional(),
  userName: z.string().optional(),
  replyToMessageId: z.string().optional(),
});

export type EventOrigin = z.infer<typeof eventOriginSchema>;

const base = {
  turnId: z.string(),
  sessionKey: z.string(),
  eventIds: z.array(z.string()),
  origin: eventOriginSchema.optional(),
};

/** The bus channel a chat platform listens on for every turn it started. */
export function platformChannel(platform: string): string {
  return `platform:${platform}`;
}

export const gatewayEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), ...base, progress: z.record(z.string(), z.json()) }),
  z.object({
    type: z.literal('final'),
    ...base,
    text: z.string(),
    /** Tokens of the turn's model calls, summed (absent when the model reported none). */
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }).optional(),
  }),
  z.object({
    type: z.literal('parked'),
    ...base,
    reason: z.string(),
    parkId: z.string(),
    payload: z.json(),
  }),
  z.object({ type: z.literal('failed'), ...base, code: z.string(), message: z.string() }),
]);

export type GatewayEvent = z.infer<typeof gatewayEventSchema>;
