import type { ChatCompletionContentPart, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { OpenAiToolDefinition } from '../../registry/tool-types.js';
import type { StoredMessage } from '../store/transcript-store.js';
import { fitContextBudget } from './fit-context-budget.js';
import { markerOf } from './message-marker.js';
import type { ModelRequest } from './stream-completion.js';
import { toModelBlocks } from './to-model-blocks.js';
import type { TurnScope } from './turn-scope.js';

/** What the next model call of a turn sends: system prompt, fitted conversation, tool definitions. */
export function buildModelRequest(scope: TurnScope): ModelRequest {
  const blocks = toModelBlocks(scope.transcript, { userContent: (message) => withImages(scope, message) });
  const fitted = fitContextBudget(blocks, {
    budgetChars: scope.core.config.agent.context_budget_chars,
    systemChars: scope.systemPrompt.length,
    earlierOmitted: scope.earlierOmitted,
  });
  if (fitted.marker !== undefined) {
    scope.log.info({ omitted: fitted.omitted }, 'conversation shortened to fit the context budget');
  }
  const tools = scope.core.registry
    .getDefinitions([...scope.allowedTools], { unattended: scope.origin.unattended })
    .map(toModelTool);
  return {
    model: scope.model,
    messages: [{ role: 'system', content: scope.systemPrompt }, ...fitted.messages],
    tools,
  };
}

/** One object per registry definition (memoised there), so its JSON is built once too (model-request-body.ts). */
const modelTools = new WeakMap<OpenAiToolDefinition, ChatCompletionTool>();

function toModelTool(definition: OpenAiToolDefinition): ChatCompletionTool {
  let tool = modelTools.get(definition);
  if (tool === undefined) {
    tool = {
      type: 'function',
      function: {
        name: definition.function.name,
        description: definition.function.description,
        parameters: definition.function.parameters,
      },
    };
    modelTools.set(definition, tool);
  }
  return tool;
}

function withImages(scope: TurnScope, message: StoredMessage): ChatCompletionContentPart[] | undefined {
  const eventId = markerOf(message)?.eventId;
  const images = eventId === undefined ? undefined : scope.images.get(eventId);
  if (images === undefined || images.length === 0) return undefined;
  return [
    { type: 'text', text: message.content ?? '' },
    ...images.map(
      (image): ChatCompletionContentPart => ({
        type: 'image_url',
        image_url: { url: image.url, ...(image.detail === undefined ? {} : { detail: image.detail }) },
      }),
    ),
  ];
}
