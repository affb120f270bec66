import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelBlock } from './to-model-blocks.js';

/** Characters reserved for the marker note when blocks are left out. */
const MARKER_RESERVE = 2_000;
/** Characters of each left-out user request quoted in the marker. */
const DIGEST_ITEM_CHARS = 120;
const DIGEST_MAX_CHARS = 1_200;

export interface FittedContext {
  readonly messages: ChatCompletionMessageParam[];
  /** Messages left out (0 when everything fitted). */
  readonly omitted: number;
  /** The marker text sent to the model, when something was left out or cut. */
  readonly marker: string | undefined;
}

/**
 * Keeps what is sent to the model under `budgetChars` (the system prompt counts too). When the
 * conversation is longer, the oldest blocks are left out and a marker note says so — with a short
 * digest of the user requests that were dropped — never silently. The latest user message always
 * stays (moved right after the marker when the blocks after it alone fill the budget); a single
 * message that alone is too large is cut in the middle with a notice.
 */
export function fitContextBudget(
  blocks: readonly ModelBlock[],
  options: { readonly budgetChars: number; readonly systemChars: number; readonly earlierOmitted?: number },
): FittedContext {
  const available = Math.max(1_000, options.budgetChars - options.systemChars);
  const earlier = options.earlierOmitted ?? 0;
  const total = blocks.reduce((sum, block) => sum + block.chars, 0);
  if (total <= available && earlier === 0) {
    return { messages: blocks.flatMap((block) => block.messages), omitted: 0, marker: undefined };
  }

  const room = available - MARKER_RESERVE;
  let used = 0;
  let start = blocks.length;
  while (start > 0) {
    const block = blocks[start - 1]!;
    if (start < blocks.length && used + block.chars > room) break;
    used += block.chars;
    start -= 1;
  }
  const kept = blocks.slice(start);
  const dropped = blocks.slice(0, start);
  let latestUser: number | undefined;
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    if (blocks[index]!.user) {
      latestUser = index;
      break;
    }
  }
  const pinned = latestUser !== undefined && latestUser < start ? blocks[latestUser] : undefined;
  const omittedBlocks = dropped.filter((block) => block !== pinned);
  const omitted = earlier + omittedBlocks.reduce((sum, block) => sum + block.messages.length, 0);

  let cut = 0;
  const budgetLeft = room - (pinned?.chars ?? 0);
  let messages = [...(pinned?.messages ?? []), ...kept.flatMap((block) => block.messages)];
  if (used + (pinned?.chars ?? 0) > room) {
    const shrunk = shrinkLargest(messages, used + (pinned?.chars ?? 0) - Math.max(budgetLeft, 0));
    messages = shrunk.messages;
    cut = shrunk.cut;
  }
  if (omitted === 0 && cut === 0) return { messages, omitted: 0, marker: undefined };
  const marker = markerText(omitted, omittedBlocks, cut);
  return { messages: [{ role: 'user', content: marker }, ...messages], omitted, marker };
}

function markerText(omitted: number, dropped: readonly ModelBlock[], cut: number): string {
  const lines = ['[Gateway note, not written by the user]'];
  if (omitted > 0) {
    lines.push(
      `The ${omitted} oldest messages of this conversation were left out so that it fits the model's context window.`,
    );
    const requests: string[] = [];
    let size = 0;
    for (const block of dropped) {
      if (!block.user) continue;
      const content = block.messages[0]?.content;
      const text = typeof content === 'string' ? content : '';
      const line = `- ${text.replace(/\s+/g, ' ').trim().slice(0, DIGEST_ITEM_CHARS)}`;
      if (size + line.length > DIGEST_MAX_CHARS) break;
      requests.push(line);
      size += line.length;
    }
    if (requests.length > 0) lines.push('Earlier user requests, oldest first:', ...requests);
  }
  if (cut > 0) lines.push(`${cut} characters were cut from the middle of very long messages below.`);
  return lines.join('\n');
}

/** Cuts the middle of the longest string contents until `excess` characters are gone. */
function shrinkLargest(
  messages: ChatCompletionMessageParam[],
  excess: number,
): { messages: ChatCompletionMessageParam[]; cut: number } {
  const out = [...messages];
  let remaining = excess;
  let cut = 0;
  while (remaining > 0) {
    let largest = -1;
    let size = 0;
    out.forEach((message, index) => {
      const content = message.content;
      if (typeof content === 'string' && content.length > size) {
        largest = index;
        size = content.length;
      }
    });
    if (largest < 0 || size < 2_000) break;
    const message = out[largest]!;
    const content = message.content as string;
    const removeCount = Math.min(remaining + 200, size - 1_000);
    const head = Math.floor((size - removeCount) / 2);
    const shortened = `${content.slice(0, head)}\n[… ${removeCount} characters cut to fit the context window …]\n${content.slice(size - (size - removeCount - head))}`;
    out[largest] = { ...message, content: shortened } as ChatCompletionMessageParam;
    remaining -= removeCount;
    cut += removeCount;
  }
  return { messages: out, cut };
}
