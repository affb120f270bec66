import { z } from 'zod';

/**
 * The parts of a Telegram `Update` the adapter reads, validated at the edge (webhook bodies and
 * getUpdates results are both untrusted input). Unknown fields are dropped, unknown update
 * kinds parse to an update with neither `message` nor `callback_query`.
 */

const userSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean().default(false),
  first_name: z.string().default(''),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

const chatSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  title: z.string().optional(),
  is_forum: z.boolean().optional(),
});

const entitySchema = z.object({
  type: z.string(),
  offset: z.number().int().min(0),
  length: z.number().int().min(0),
  user: userSchema.optional(),
});

const photoSizeSchema = z.object({
  file_id: z.string(),
  file_unique_id: z.string(),
  width: z.number().optional(),
  height: z.number().optional(),
  file_size: z.number().optional(),
});

const documentSchema = z.object({
  file_id: z.string(),
  file_unique_id: z.string(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
  file_size: z.number().optional(),
});

const repliedSchema = z.object({
  message_id: z.number().int(),
  from: userSchema.optional(),
  forum_topic_created: z.unknown().optional(),
});

export const telegramMessageSchema = z.object({
  message_id: z.number().int(),
  date: z.number().optional(),
  chat: chatSchema,
  from: userSchema.optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  caption_entities: z.array(entitySchema).optional(),
  reply_to_message: repliedSchema.optional(),
  photo: z.array(photoSizeSchema).optional(),
  document: documentSchema.optional(),
});

export const telegramCallbackSchema = z.object({
  id: z.string(),
  from: userSchema,
  data: z.string().optional(),
  message: z
    .object({
      message_id: z.number().int(),
      chat: chatSchema,
      message_thread_id: z.number().int().optional(),
      is_topic_message: z.boolean().optional(),
    })
    .optional(),
});

export const telegramUpdateSchema = z.object({
  update_id: z.number().int().min(0),
  message: telegramMessageSchema.optional(),
  callback_query: telegramCallbackSchema.optional(),
});

export type TelegramUpdate = z.output<typeof telegramUpdateSchema>;
export type TelegramMessage = z.output<typeof telegramMessageSchema>;
export type TelegramCallback = z.output<typeof telegramCallbackSchema>;
export type TelegramUser = z.output<typeof userSchema>;
export type TelegramEntity = z.output<typeof entitySchema>;

/** The update kinds the adapter asks Telegram for. */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;
