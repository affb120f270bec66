import { z } from 'zod';

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
    model: z.string().max(200).optional(),
    messages: z.array(chatMessageSchema).min(1).max(1000),
    stream: z.boolean().optional(),
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
