import { z } from 'zod';
import type { HistoryMessage, TurnImageInput } from '../ingress.js';

/** The parts of an OpenAI Responses request the gateway uses; other fields are ignored. */
const contentPart = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    image_url: z.string().optional(),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  })
  .passthrough();

const inputItem = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(contentPart)]),
  })
  .passthrough();

/** `resp_<conversation>_<request>`: the conversation token lets `previous_response_id` continue it. */
export const RESPONSE_ID = /^resp_([a-f0-9]{32})_([a-f0-9]{32})$/;

export const responsesRequestSchema = z
  .object({
    model: z.string().min(1).max(200).optional(),
    input: z.union([z.string().min(1), z.array(inputItem).min(1).max(1000)]),
    instructions: z.string().max(100_000).nullable().optional(),
    previous_response_id: z
      .string()
      .regex(RESPONSE_ID, 'is not a response id of this gateway')
      .nullable()
      .optional(),
    stream: z.boolean().optional(),
    user: z.string().min(1).max(256).optional(),
  })
  .passthrough();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
type InputItem = z.infer<typeof inputItem>;

/** The text and images of one input item. */
export function itemContent(item: InputItem): { text: string; images: TurnImageInput[] } {
  if (typeof item.content === 'string') return { text: item.content, images: [] };
  const texts: string[] = [];
  const images: TurnImageInput[] = [];
  for (const part of item.content) {
    if ((part.type === 'input_text' || part.type === 'output_text') && part.text !== undefined) {
      texts.push(part.text);
    }
    if (part.type === 'input_image' && part.image_url !== undefined) {
      images.push({ url: part.image_url, ...(part.detail !== undefined ? { detail: part.detail } : {}) });
    }
  }
  return { text: texts.join('\n'), images };
}

/** The last item as the turn's input, and the earlier ones (with `instructions`) as history. */
export function splitResponsesInput(request: ResponsesRequest): {
  last: { role: string; text: string; images: TurnImageInput[] };
  history: HistoryMessage[];
} {
  const items: InputItem[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  const lastItem = items[items.length - 1] as InputItem;
  const history: HistoryMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions.trim() !== '') {
    history.push({ role: 'system', content: request.instructions });
  }
  for (const item of items.slice(0, -1)) {
    const { text } = itemContent(item);
    if (text === '') continue;
    history.push({ role: item.role === 'developer' ? 'system' : item.role, content: text });
  }
  return { last: { role: lastItem.role, ...itemContent(lastItem) }, history };
}
