import { LRUCache } from 'lru-cache';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import type { Registry } from '../../registry/create-registry.js';
import type { Toolsets } from '../../registry/toolsets.js';
import type { InboxItem, SubmitResult, TurnContext, TurnHandler } from '../queue/turn-queue.js';
import type { AgentTaskTable } from './agent-task-table.js';
import { DEFAULT_MODEL_RETRY, type ModelRetryPolicy } from './call-model.js';
import { createModelClient } from './create-model-client.js';
import { OutcomeLatch } from './outcome-latch.js';
import { parkedStateSchema, RESUMING } from './parked-state.js';
import type { ResumableApprovalGate } from './resumable-approval-gate.js';
import { runMessageTurn, type SegmentResult } from './run-message-turn.js';
import { runResumeTurn } from './run-resume-turn.js';
import type { TurnStore } from './runner-core.js';
import { observe, type RunnerCore } from './runner-core.js';
import { TranscriptCache, type TranscriptCacheOptions } from './transcript-cache.js';
import type { TurnEvents, TurnObserver } from './turn-events.js';
import type { RESUME_DECISIONS } from './turn-origin.js';
import { turnSegments } from './turn-segments.js';

export interface TurnRunnerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: TurnStore;
  readonly registry: Pick<Registry, 'dispatch' | 'getDefinitions' | 'get' | 'services'>;
  readonly toolsets: Pick<Toolsets, 'resolveSelection'>;
  readonly events: TurnEvents;
  /** Builds the model client; defaults to `createModelClient(config)`. Called once, lazily. */
  readonly clientFactory?: () => OpenAI | undefined;
  /** The approval gate wrapper whose `gate` the tools use; needed to resume approvals. */
  readonly approvals?: ResumableApprovalGate;
  /** Shared with the sub-agent service so `delegate_task` knows its parent turn. */
  readonly tasks?: AgentTaskTable;
  readonly observer?: TurnObserver;
  /** Submits an inbox item (the queue's `submit`); `resume()` needs it. */
  readonly submit?: (item: InboxItem) => Promise<SubmitResult>;
  readonly now?: () => number;
  readonly modelRetry?: Partial<ModelRetryPolicy>;
  /** Sessions whose system prompt is kept (least recently used dropped first). Default 256. */
  readonly promptCacheSize?: number;
  /** Ms a clarify question waits before the turn resumes without an answer. Default 1 h. */
  readonly clarifyTimeoutMs?: number;
  /** Transcript messages loaded per turn at most. Default 2000. */
  readonly maxLoadedMessages?: number;
  /** Bounds of the transcript cache (sessions, characters); `{ maxSessions: 0 }` turns it off. */
  readonly transcriptCache?: TranscriptCacheOptions;
}

export interface ResumeInput {
  /** The parked turn (from the `parked` event). */
  readonly turnId: string;
  /** The park being answered (from the `parked` event); stale answers are then ignored. */
  readonly parkId?: string;
  readonly decision?: (typeof RESUME_DECISIONS)[number];
  /** The user's answer to a clarify question. */
  readonly answer?: string;
}

export interface ResumeSubmission {
  /** `not_parked`: nothing to resume; `duplicate`: the same resume was already submitted. */
  readonly status: 'submitted' | 'duplicate' | 'not_parked';
  readonly item?: InboxItem;
}

export interface TurnRunner {
  /** The queue's turn handler. */
  readonly handle: TurnHandler;
  /**
   * Continues a parked turn: builds the `resume` inbox item for its session and submits it. Call
   * it after the approval decision is recorded in the gate (or with the clarify answer), and from
   * the sweeper for parked turns past their `expiresAt` (no answer = timeout / deny).
   */
  resume(input: ResumeInput): Promise<ResumeSubmission>;
  /** The `resume` item for a parked turn, without submitting it (undefined when not parked). */
  resumeItem(input: ResumeInput): Promise<InboxItem | undefined>;
}

export function createTurnRunner(deps: TurnRunnerDeps): TurnRunner {
  const logger = deps.logger.child({ component: 'turn-runner' });
  let client: { value: OpenAI | undefined } | undefined;
  const core: RunnerCore = {
    config: deps.config,
    logger,
    store: deps.store,
    registry: deps.registry,
    toolsets: deps.toolsets,
    events: deps.events,
    observer: deps.observer,
    approvals: deps.approvals,
    tasks: deps.tasks,
    client: () => {
      client ??= { value: (deps.clientFactory ?? (() => createModelClient(deps.config)))() };
      return client.value;
    },
    retry: { ...DEFAULT_MODEL_RETRY, ...deps.modelRetry },
    prompts: new LRUCache({ max: Math.max(1, deps.promptCacheSize ?? 256) }),
    now: deps.now ?? Date.now,
    newId: timeOrderedId,
    clarifyTimeoutMs: deps.clarifyTimeoutMs ?? 60 * 60_000,
    maxLoadedMessages: deps.maxLoadedMessages ?? 2_000,
    transcripts: new TranscriptCache(deps.transcriptCache),
  };
  const servicesGate = deps.registry.services.approvalGate;
  if (servicesGate !== undefined && deps.approvals?.gate !== servicesGate) {
    logger.warn(
      'the tools use an approval gate the runner cannot resume through; pass createResumableApprovalGate(controller) as `approvals` and its `gate` as services.approvalGate, or approved commands will be asked again',
    );
  }

  async function runSegment(
    turn: TurnContext,
    eventIds: readonly string[],
    fallbackTurnId: string,
    body: (latch: OutcomeLatch) => Promise<{ result: SegmentResult; turnId: string }>,
  ): Promise<void> {
    const latch = new OutcomeLatch(deps.events, eventIds);
    const started = core.now();
    let ended: { result: SegmentResult; turnId: string };
    try {
      ended = await body(latch);
    } catch (error) {
      observe(core, 'turnEnded', { outcome: 'thrown', durationMs: core.now() - started });
      throw error;
    }
    if (ended.result === 'skipped') return;
    await latch.ensure(() => {
      logger.error({ turnId: ended.turnId }, 'turn ended without an outcome');
      return {
        turnId: ended.turnId || fallbackTurnId,
        sessionKey: turn.sessionKey,
        origin: undefined,
        code: 'internal',
        message:
          'Something went wrong inside the gateway and this turn ended without an answer. Please try again.',
      };
    });
    observe(core, 'turnEnded', {
      outcome: latch.outcome ?? 'failed',
      durationMs: core.now() - started,
      ...(latch.failureCode === undefined ? {} : { failureCode: latch.failureCode }),
    });
  }

  const handle: TurnHandler = async (queued) => {
    // Every event of the turn carries the event ids of its items and of the messages steered in.
    const eventIds = queued.items.map((item) => item.eventId);
    const turn: TurnContext = {
      turnId: queued.turnId,
      sessionKey: queued.sessionKey,
      items: queued.items,
      attempt: queued.attempt,
      signal: queued.signal,
      takeSteering: async () => {
        const steered = await queued.takeSteering();
        for (const item of steered) eventIds.push(item.eventId);
        return steered;
      },
    };
    for (const segment of turnSegments(turn)) {
      if (segment.kind === 'messages') {
        await runSegment(turn, eventIds, segment.turnId, async (latch) => ({
          result: await runMessageTurn(core, turn, segment.turnId, segment.items, latch),
          turnId: segment.turnId,
        }));
      } else {
        await runSegment(turn, eventIds, turn.turnId, (latch) =>
          runResumeTurn(core, turn, segment.item, latch),
        );
      }
    }
  };

  async function resumeItem(input: ResumeInput): Promise<InboxItem | undefined> {
    const parked = await deps.store.getParkedTurn(input.turnId);
    if (parked === undefined) return undefined;
    const state = parkedStateSchema.safeParse(parked.state);
    const parkId = input.parkId ?? (state.success ? state.data.parkId : 'unknown');
    return {
      sessionKey: parked.sessionKey,
      // Same park → same event id, so a double click or click + timeout sweep runs one resume.
      eventId: `resume:${input.turnId}:${parkId}${parked.reason === RESUMING ? ':recover' : ''}`,
      kind: 'resume',
      payload: {
        turnId: input.turnId,
        parkId,
        ...(input.decision === undefined ? {} : { decision: input.decision }),
        ...(input.answer === undefined ? {} : { answer: input.answer }),
      },
      receivedAt: core.now(),
    };
  }

  return {
    handle,
    resumeItem,
    async resume(input) {
      if (deps.submit === undefined) {
        throw new HermesError(
          'queue_failed',
          'runner.resume needs the queue: pass `submit` to createTurnRunner',
        );
      }
      const item = await resumeItem(input);
      if (item === undefined) return { status: 'not_parked' };
      const submitted = await deps.submit(item);
      return { status: submitted.status === 'duplicate' ? 'duplicate' : 'submitted', item };
    },
  };
}
