import { z } from 'zod';

/**
 * What Feishu/Lark pushes, read with zod at the edge. Lark adds fields over time, so objects are
 * loose; only what the adapter uses is required.
 */

const ids = z.looseObject({
  open_id: z.string().optional(),
  user_id: z.string().optional(),
  union_id: z.string().optional(),
});
export type LarkIds = z.infer<typeof ids>;

export const messageEventSchema = z.looseObject({
  sender: z.looseObject({
    sender_id: ids.optional(),
    sender_type: z.string().optional(),
  }),
  message: z.looseObject({
    message_id: z.string().min(1),
    chat_id: z.string().min(1),
    chat_type: z.string(),
    message_type: z.string(),
    content: z.string(),
    parent_id: z.string().optional(),
    root_id: z.string().optional(),
    thread_id: z.string().optional(),
    mentions: z
      .array(z.looseObject({ key: z.string(), id: ids.optional(), name: z.string().optional() }))
      .optional(),
  }),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

export const cardActionSchema = z.looseObject({
  operator: ids.optional(),
  action: z.looseObject({ value: z.unknown().optional(), tag: z.string().optional() }),
  context: z.looseObject({ open_message_id: z.string().min(1), open_chat_id: z.string().optional() }),
});
export type CardActionEvent = z.infer<typeof cardActionSchema>;

/** One event however it arrived: the webhook's v2 envelope, or the SDK's flattened long-connection data. */
export interface LarkEvent {
  readonly eventId: string;
  readonly eventType: string;
  readonly event: unknown;
}

const envelopeSchema = z.looseObject({
  header: z.looseObject({ event_id: z.string().min(1), event_type: z.string().min(1) }),
  event: z.unknown(),
});

/** A v2 envelope (`{schema, header, event}`), or undefined when the payload is not one. */
export function eventOfEnvelope(payload: unknown): LarkEvent | undefined {
  const parsed = envelopeSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  return {
    eventId: parsed.data.header.event_id,
    eventType: parsed.data.header.event_type,
    event: parsed.data.event,
  };
}

const flatSchema = z.looseObject({ event_id: z.string().min(1) });

/** The SDK's event data (header fields merged into the event), as its dispatcher hands it over. */
export function eventOfSdkData(eventType: string, data: unknown): LarkEvent | undefined {
  const parsed = flatSchema.safeParse(data);
  if (!parsed.success) return undefined;
  return { eventId: parsed.data.event_id, eventType, event: data };
}
