import type OpenAI from 'openai';
import type { Logger } from 'pino';
import { isHermesError } from '../../errors/hermes-error.js';
import type {} from '../../tools/memory/memory-services.js';
import type { InboxItem } from '../queue/turn-queue.js';
import type { NewMessage, StoredMessage } from '../store/transcript-store.js';
import { buildSystemPrompt } from './build-system-prompt.js';
import { encodeMarker } from './message-marker.js';
import type { OutcomeLatch } from './outcome-latch.js';
import { resolveSessionTools } from './resolve-session-tools.js';
import type { RunnerCore } from './runner-core.js';
import type { TurnFailureCode, TurnProgress } from './turn-events.js';
import type { TurnImage, TurnOrigin } from './turn-origin.js';

/** Everything one running turn needs; `transcript` grows as steps are persisted. */
export interface TurnScope {
  readonly core: RunnerCore;
  readonly log: Logger;
  readonly turnId: string;
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly origin: TurnOrigin;
  readonly model: string;
  readonly client: OpenAI;
  readonly allowedTools: ReadonlySet<string>;
  readonly systemPrompt: string;
  readonly signal: AbortSignal;
  readonly transcript: StoredMessage[];
  /** Messages of the session older than the loaded part. */
  readonly earlierOmitted: number;
  /** Images of this turn's user messages, by event id (sent with them to the model). */
  readonly images: Map<string, readonly TurnImage[]>;
  readonly takeSteering: () => Promise<readonly InboxItem[]>;
  readonly latch: OutcomeLatch;
}

export type ScopeResult =
  | { readonly ok: true; readonly scope: TurnScope }
  | { readonly ok: false; readonly code: TurnFailureCode; readonly message: string };

export interface ScopeInput {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly origin: TurnOrigin;
  /** The session id the turn writes to; defaults to the key's current one. */
  readonly sessionId?: string;
  readonly signal: AbortSignal;
  readonly takeSteering: () => Promise<readonly InboxItem[]>;
  readonly latch: OutcomeLatch;
}

/**
 * Loads what a turn runs with: the session, the model and client, the allowed tools, the frozen
 * system prompt and the transcript. Configuration problems come back as a failure for the user.
 */
export async function openTurnScope(core: RunnerCore, input: ScopeInput): Promise<ScopeResult> {
  const { origin } = input;
  const session = await core.store.getOrCreateSession(input.sessionKey);
  const model = origin.model ?? session.modelOverride ?? core.config.model.name;
  const client = core.client();
  if (client === undefined || model === undefined) {
    return {
      ok: false,
      code: 'no_model',
      message:
        client === undefined
          ? 'No model is configured for this gateway yet, so I cannot answer. The operator needs to set OPENAI_BASE_URL (and OPENAI_API_KEY if the server needs one) and HERMES_MODEL.'
          : 'No model name is configured for this gateway yet, so I cannot answer. The operator needs to set HERMES_MODEL (or model.name in config.yaml).',
    };
  }
  let tools: string[];
  try {
    tools = resolveSessionTools({ origin, session, config: core.config, toolsets: core.toolsets });
  } catch (error) {
    if (!isHermesError(error, 'toolset_unknown')) throw error;
    return {
      ok: false,
      code: 'invalid_request',
      message: `This chat's tool configuration is invalid: ${error.message}`,
    };
  }
  const sessionId = input.sessionId ?? session.sessionId;
  const promptKey = `${sessionId}\u0000${origin.userId ?? ''}`;
  let systemPrompt = core.prompts.get(promptKey);
  if (systemPrompt === undefined) {
    systemPrompt = await buildSystemPrompt({
      origin,
      sessionKey: input.sessionKey,
      startedAt: session.sessionId === sessionId ? session.sessionStartedAt : core.now(),
      memoryStore: core.registry.services.memoryStore,
    });
    core.prompts.set(promptKey, systemPrompt);
  }
  // The last `maxLoadedMessages` (never starting with a tool result), from the transcript cache.
  const { transcript, earlierOmitted } = await core.transcripts.load(
    core.store,
    sessionId,
    core.maxLoadedMessages,
  );
  return {
    ok: true,
    scope: {
      core,
      log: core.logger.child({ turnId: input.turnId, sessionKey: input.sessionKey }),
      turnId: input.turnId,
      sessionKey: input.sessionKey,
      sessionId,
      origin,
      model,
      client,
      allowedTools: new Set(tools),
      systemPrompt,
      signal: input.signal,
      transcript,
      earlierOmitted,
      images: new Map(),
      takeSteering: input.takeSteering,
      latch: input.latch,
    },
  };
}

/** Appends messages to the session (one transaction) and to the scope's transcript. */
export async function persist(scope: TurnScope, messages: readonly NewMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const stored = await scope.core.store.appendMessages(scope.sessionId, messages);
  scope.transcript.push(...stored);
}

/** The user messages for inbox items, in order, marked with the turn and their event ids. */
export function userMessages(
  turnId: string,
  entries: readonly { readonly item: InboxItem; readonly origin: TurnOrigin }[],
): NewMessage[] {
  return entries.map(({ item, origin }) => ({
    role: 'user' as const,
    content: userText(item.text, origin),
    name: encodeMarker({ turnId, eventId: item.eventId }),
  }));
}

function userText(text: string | undefined, origin: TurnOrigin): string {
  const images = origin.images?.length ?? 0;
  let body = (text ?? '').trim();
  if (images > 0) body += `${body === '' ? '' : '\n'}[${images} image${images === 1 ? '' : 's'} attached]`;
  if (body === '') body = '(empty message)';
  const shared = origin.chatType !== 'dm' && origin.chatType !== 'webhook';
  const sender = origin.userName ?? origin.userId;
  return shared && sender !== undefined ? `[${sender.replace(/[[\]\n]/g, ' ').slice(0, 64)}] ${body}` : body;
}

/** Sends a progress event; failures of the sink are logged and never affect the turn. */
export function progress(scope: TurnScope, event: TurnProgress): void {
  try {
    const sent = scope.core.events.progress({
      turnId: scope.turnId,
      sessionKey: scope.sessionKey,
      eventIds: scope.latch.eventIds,
      origin: scope.origin,
      ...event,
    });
    if (sent instanceof Promise)
      sent.catch((error: unknown) => scope.log.debug({ err: error }, 'progress sink failed'));
  } catch (error) {
    scope.log.debug({ err: error }, 'progress sink failed');
  }
}
