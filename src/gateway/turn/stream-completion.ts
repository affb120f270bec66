import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ToolCallRecord } from '../store/transcript-store.js';
import { modelRequestBody } from './model-request-body.js';

export interface ModelRequest {
  readonly model: string;
  readonly messages: ChatCompletionMessageParam[];
  readonly tools: readonly ChatCompletionTool[];
}

export interface ModelReply {
  readonly content: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly finishReason: string | undefined;
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
}

/**
 * The model began its answer and then sent nothing for longer than the client's timeout. The
 * SDK's `timeout` covers only the wait for the headers; without this a stream that goes silent
 * would hang until the transport's own body timeout (300 s).
 */
export class ModelStreamStalledError extends Error {
  constructor(readonly silentMs: number) {
    super(`the model stream sent nothing for ${silentMs} ms`);
    this.name = 'ModelStreamStalledError';
  }
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One streaming chat-completion request. Tool calls arrive as deltas keyed by `index` and are
 * put together here; text deltas are passed to `onText` as they come. The SDK's own retries
 * are off (`maxRetries: 0`): the caller decides about retries. The signal aborts the request.
 * A stream that falls silent mid-answer for longer than the client's `timeout` (`model.timeout_ms`)
 * is aborted with `ModelStreamStalledError`, which callers retry like a dropped connection.
 */
export async function streamCompletion(
  client: OpenAI,
  request: ModelRequest,
  options: {
    readonly signal: AbortSignal;
    readonly onText?: (text: string) => void;
    readonly newId: () => string;
  },
): Promise<ModelReply> {
  // The SDK never removes the listener it adds to the signal it is given; a per-call child
  // signal keeps a long turn's signal from collecting one listener per model call.
  const child = new AbortController();
  const forward = () => child.abort(options.signal.reason);
  if (options.signal.aborted) forward();
  else options.signal.addEventListener('abort', forward, { once: true });
  const silentMs = client.timeout;
  let stalled = false;
  try {
    const reply = await streamOnce(client, request, {
      ...options,
      signal: child.signal,
      silentMs,
      onStall: () => {
        stalled = true;
        child.abort(new ModelStreamStalledError(silentMs));
      },
    });
    // The SDK ends an aborted stream quietly, as if it were complete: a cut-off reply must not
    // pass for the whole one.
    if (child.signal.aborted) throw child.signal.reason;
    return reply;
  } catch (error) {
    if (stalled && !options.signal.aborted) throw new ModelStreamStalledError(silentMs);
    throw error;
  } finally {
    options.signal.removeEventListener('abort', forward);
  }
}

async function streamOnce(
  client: OpenAI,
  request: ModelRequest,
  options: {
    readonly signal: AbortSignal;
    readonly onText?: (text: string) => void;
    readonly newId: () => string;
    readonly silentMs: number;
    readonly onStall: () => void;
  },
): Promise<ModelReply> {
  const stream = await client.chat.completions.create(
    // What is sent is `body`: this request as JSON bytes from modelRequestBody (tools included,
    // their schemas serialised once), which the SDK passes on as they are, so the content-type
    // is given here. The first argument only types the call as a stream.
    { model: request.model, messages: request.messages, stream: true },
    {
      signal: options.signal,
      maxRetries: 0,
      body: modelRequestBody(request),
      headers: { 'content-type': 'application/json' },
    },
  );
  let content = '';
  let finishReason: string | undefined;
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  const calls = new Map<number, PartialCall>();
  // Silence is timed once the answer has begun (text or a tool call). Before that a reasoning
  // model may think for minutes while its server sends only SSE comments, which the SDK does not
  // hand on as chunks (undici's body timeout, reset by any byte, still bounds that wait).
  let silence: NodeJS.Timeout | undefined;
  try {
    for await (const chunk of stream) {
      readChunk(chunk);
      if (silence !== undefined) silence.refresh();
      else if (content !== '' || calls.size > 0) silence = setTimeout(options.onStall, options.silentMs);
    }
  } finally {
    clearTimeout(silence);
  }
  function readChunk(chunk: ChatCompletionChunk): void {
    if (chunk.usage) {
      promptTokens = chunk.usage.prompt_tokens;
      completionTokens = chunk.usage.completion_tokens;
    }
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && delta.content !== '') {
      content += delta.content;
      options.onText?.(delta.content);
    }
    for (const part of delta?.tool_calls ?? []) {
      const index = typeof part.index === 'number' ? part.index : calls.size;
      let call = calls.get(index);
      if (call === undefined) {
        call = { id: '', name: '', arguments: '' };
        calls.set(index, call);
      }
      if (part.id) call.id = part.id;
      const name = part.function?.name;
      // Most servers send the name once; some repeat it whole in later deltas, a few split it.
      if (name && name !== call.name) call.name += name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls: ToolCallRecord[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id || options.newId(),
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
    }));
  return { content, toolCalls, finishReason, promptTokens, completionTokens };
}
