import type { LRUCache } from 'lru-cache';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { Registry } from '../../registry/create-registry.js';
import type { Toolsets } from '../../registry/toolsets.js';
import type { ParkedTurnStore } from '../store/parked-turn-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { TranscriptStore } from '../store/transcript-store.js';
import type { AgentTaskTable } from './agent-task-table.js';
import type { ModelRetryPolicy } from './call-model.js';
import type { ResumableApprovalGate } from './resumable-approval-gate.js';
import type { TranscriptCache } from './transcript-cache.js';
import type { TurnEvents, TurnObserver } from './turn-events.js';

/** What every step of the runner shares; built once by `createTurnRunner`. */
/** The store areas a turn reads and writes: its session, its transcript, parked turns. */
export type TurnStore = SessionStore & TranscriptStore & ParkedTurnStore;

export interface RunnerCore {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: TurnStore;
  readonly registry: Pick<Registry, 'dispatch' | 'getDefinitions' | 'get' | 'services'>;
  readonly toolsets: Pick<Toolsets, 'resolveSelection'>;
  readonly events: TurnEvents;
  readonly observer: TurnObserver | undefined;
  readonly approvals: ResumableApprovalGate | undefined;
  readonly tasks: AgentTaskTable | undefined;
  /** The model client, or undefined when no endpoint is configured. */
  readonly client: () => OpenAI | undefined;
  readonly retry: ModelRetryPolicy;
  /** System prompts by session id (+ user), frozen for the session. */
  readonly prompts: LRUCache<string, string>;
  readonly now: () => number;
  readonly newId: () => string;
  /** How long a clarify question waits for its answer before the turn resumes without one, ms. */
  readonly clarifyTimeoutMs: number;
  /** Transcript messages loaded per turn at most (older ones count as left out). */
  readonly maxLoadedMessages: number;
  /** Recently active sessions' transcripts: a turn reads only what was appended since. */
  readonly transcripts: TranscriptCache;
}

/** Calls an observer hook, ignoring its failures. */
export function observe<K extends keyof TurnObserver>(
  core: Pick<RunnerCore, 'observer'>,
  hook: K,
  info: Parameters<NonNullable<TurnObserver[K]>>[0],
): void {
  try {
    const fn = core.observer?.[hook] as ((value: typeof info) => void) | undefined;
    fn?.call(core.observer, info);
  } catch {
    // Metrics never break a turn.
  }
}
