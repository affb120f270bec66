import type { StoredMessage, ToolCallRecord } from '../store/transcript-store.js';
import { markerOf } from './message-marker.js';

/** Token counts the model reported, summed over a turn's model calls. */
export interface TurnUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** How far one turn got, read back from the persisted transcript. */
export interface TurnProgressState {
  /** Event ids of every user message the runner wrote (any turn): those are never written twice. */
  readonly eventIds: ReadonlySet<string>;
  /** True when any message of the turn is in the transcript. */
  readonly started: boolean;
  /** Model calls the turn has made so far (its assistant messages). */
  readonly modelCalls: number;
  /** The turn's final answer, when its last assistant message calls no tools. */
  readonly finalText: string | undefined;
  /** Tokens of the turn's model calls, summed; undefined when the model reported none. */
  readonly usage: TurnUsage | undefined;
  /** The turn's last tool-calling step and the calls of it that have no result yet. */
  readonly openStep:
    | { readonly assistant: StoredMessage; readonly missing: readonly ToolCallRecord[] }
    | undefined;
}

export function readTurnProgress(transcript: readonly StoredMessage[], turnId: string): TurnProgressState {
  const eventIds = new Set<string>();
  const answered = new Set<string>();
  let started = false;
  let modelCalls = 0;
  let last: StoredMessage | undefined;
  let promptTokens = 0;
  let completionTokens = 0;
  let reported = false;
  for (const message of transcript) {
    if (message.role === 'tool') {
      if (message.toolCallId !== undefined) answered.add(message.toolCallId);
      continue;
    }
    const marker = markerOf(message);
    if (message.role === 'user' && marker?.eventId !== undefined) eventIds.add(marker.eventId);
    if (marker?.turnId !== turnId) continue;
    started = true;
    if (message.role === 'assistant') {
      modelCalls += 1;
      last = message;
      if (message.promptTokens !== undefined || message.completionTokens !== undefined) {
        reported = true;
        promptTokens += message.promptTokens ?? 0;
        completionTokens += message.completionTokens ?? 0;
      }
    }
  }
  const calls = last?.toolCalls ?? [];
  const finalText = last !== undefined && calls.length === 0 ? (last.content ?? '') : undefined;
  const missing = calls.filter((call) => !answered.has(call.id));
  return {
    eventIds,
    started,
    modelCalls,
    finalText,
    usage: reported ? { promptTokens, completionTokens } : undefined,
    openStep: last !== undefined && missing.length > 0 ? { assistant: last, missing } : undefined,
  };
}
