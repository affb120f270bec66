import { z } from 'zod';
import type { HistoryMessage } from '../ingress.js';

/** The parts of an OpenAI chat-completions request the gateway uses; other fields are ignored. */
const textPart = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
const imagePart = z
  .object({
    type: z.literal('image_url'),
    image_url: z.union([
      z.string(),
      z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
    ]),
  })
  .passthrough();
const otherPart = z.object({ type: z.string() }).passthrough();

export const chatMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.union([textPart, imagePart, otherPart])), z.null()]).optional(),
    name: z.string().max(256).optional(),
  })
  .passthrough();

export const chatRequestSchema = z
  .object({
    model: z.string().min(1, 'must not be empty (leave it out for the gateway’s model)').max(200).optional(),
    messages: z.array(chatMessageSchema).min(1).max(1000),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    user: z.string().min(1).max(256).optional(),
  })
  .passthrough();

export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The text of a message's content (text parts joined), and its images. */
export function splitContent(content: ChatMessage['content']): {
  text: string;
  images: { url: string; detail?: 'auto' | 'low' | 'high' }[];
} {
  if (typeof content === 'string') return { text: content, images: [] };
  if (!Array.isArray(content)) return { text: '', images: [] };
  const texts: string[] = [];
  const images: { url: string; detail?: 'auto' | 'low' | 'high' }[] = [];
  for (const part of content) {
    if (part.type === 'text' && typeof part['text'] === 'string') texts.push(part['text']);
    if (part.type === 'image_url') {
      const raw = (part as { image_url?: unknown }).image_url;
      if (typeof raw === 'string') images.push({ url: raw });
      else if (
        typeof raw === 'object' &&
        raw !== null &&
        typeof (raw as { url?: unknown }).url === 'string'
      ) {
        const detail = (raw as { detail?: unknown }).detail;
        images.push({
          url: (raw as { url: string }).url,
          ...(detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {}),
        });
      }
    }
  }
  return { text: texts.join('\n'), images };
}

/** Images one message may carry (the turn's limit). */
export const MAX_IMAGES = 8;
const IMAGE_URL = /^(?:https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i;

/** Why the images of the last message cannot be used, in words for the client; undefined when they can. */
export function imageProblem(images: readonly { url: string }[]): string | undefined {
  if (images.length > MAX_IMAGES) {
    return `The last message has ${images.length} image_url parts; at most ${MAX_IMAGES} are accepted.`;
  }
  const bad = images.findIndex((image) => !IMAGE_URL.test(image.url));
  if (bad >= 0) {
    return `image_url ${bad + 1} of the last message must be an http(s) URL or a data:image/<type>;base64,… URL.`;
  }
  return undefined;
}

/** Earlier messages of a stand-alone request, as transcript entries (tool messages are left out). */
export function toHistoryMessage(message: ChatMessage): HistoryMessage[] {
  const { text } = splitContent(message.content);
  if (text === '') return [];
  switch (message.role) {
    case 'system':
    case 'developer':
      return [{ role: 'system', content: text }];
    case 'user':
      return [{ role: 'user', content: text }];
    case 'assistant':
      return [{ role: 'assistant', content: text }];
    default:
      return [];
  }
}
