import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { StoredMessage } from '../store/transcript-store.js';

/**
 * A unit of conversation that is kept or left out as a whole when the context budget is tight:
 * one user message, one system note, or one assistant message together with the results of its
 * tool calls — so what reaches the model never starts with, or contains, an orphan tool message.
 */
export interface ModelBlock {
  readonly messages: ChatCompletionMessageParam[];
  /** Characters of text in the block (contents and tool-call arguments). */
  chars: number;
  /** The block is a user message (the context budget always keeps the latest one). */
  readonly user: boolean;
}

export interface ToModelBlocksOptions {
  /** Content for a user message, e.g. with the images of the current turn attached. */
  readonly userContent?: (message: StoredMessage) => string | ChatCompletionContentPart[] | undefined;
}

/** Stands in for a result that does not exist (yet) where the model must see one. */
export const PENDING_RESULT = JSON.stringify({
  status: 'no_result',
  note: 'This call had not finished when the conversation moved on (it was waiting for an approval or an answer, or it was stopped). If a result came later, it appears further down.',
});

function lateResultNote(name: string, id: string, content: string): string {
  return `[Result of your earlier ${name} call (${id}), which was still waiting when the conversation moved on]\n${content}`;
}

function textLength(content: string | ChatCompletionContentPart[] | null | undefined): number {
  if (content === null || content === undefined) return 0;
  if (typeof content === 'string') return content.length;
  let total = 0;
  for (const part of content) total += part.type === 'text' ? part.text.length : 1_000;
  return total;
}

/**
 * Turns the stored transcript into model messages, grouped into blocks. Tool results follow
 * their assistant message. A call without a result when the conversation moved on gets a
 * placeholder result there; a result stored later (a parked turn resumed after other messages)
 * becomes a user-role note at the point it arrived, so the order of events stays true and the
 * sequence stays valid for the API.
 */
export function toModelBlocks(
  transcript: readonly StoredMessage[],
  options: ToModelBlocksOptions = {},
): ModelBlock[] {
  const blocks: ModelBlock[] = [];
  const callNames = new Map<string, string>();
  let open: { block: ModelBlock; pending: Map<string, string> } | undefined;

  const close = () => {
    if (open === undefined) return;
    for (const id of open.pending.keys()) {
      open.block.messages.push({ role: 'tool', tool_call_id: id, content: PENDING_RESULT });
      open.block.chars += PENDING_RESULT.length;
    }
    open = undefined;
  };
  const note = (text: string) => {
    blocks.push({ messages: [{ role: 'user', content: text }], chars: text.length, user: false });
  };

  for (const message of transcript) {
    const content = message.content ?? '';
    if (message.role === 'tool') {
      const id = message.toolCallId ?? '';
      if (open?.pending.has(id)) {
        open.pending.delete(id);
        open.block.messages.push({ role: 'tool', tool_call_id: id, content });
        open.block.chars += content.length;
        continue;
      }
      close();
      const name = callNames.get(id) ?? message.name ?? 'tool';
      note(lateResultNote(name, id || 'unknown id', content));
      continue;
    }
    close();
    if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      const block: ModelBlock = {
        messages: [
          calls.length > 0
            ? {
                role: 'assistant',
                content: message.content,
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.function.name, arguments: call.function.arguments },
                })),
              }
            : { role: 'assistant', content },
        ],
        chars: content.length + calls.reduce((sum, call) => sum + call.function.arguments.length, 0),
        user: false,
      };
      blocks.push(block);
      if (calls.length > 0) {
        open = { block, pending: new Map(calls.map((call) => [call.id, call.function.name])) };
        for (const call of calls) callNames.set(call.id, call.function.name);
      }
      continue;
    }
    if (message.role === 'system') {
      blocks.push({ messages: [{ role: 'system', content }], chars: content.length, user: false });
      continue;
    }
    const userContent = options.userContent?.(message) ?? content;
    blocks.push({
      messages: [{ role: 'user', content: userContent }],
      chars: textLength(userContent),
      user: true,
    });
  }
  close();
  return blocks;
}
