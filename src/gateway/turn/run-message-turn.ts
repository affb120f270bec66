import type { InboxItem, TurnContext } from '../queue/turn-queue.js';
import { continueTurn } from './continue-turn.js';
import type { OutcomeLatch } from './outcome-latch.js';
import { parkedStateSchema, RESUMING } from './parked-state.js';
import { parkedEventOf } from './run-step.js';
import type { RunnerCore } from './runner-core.js';
import { PLATFORM_TOKEN, parseTurnOrigin, type TurnOrigin } from './turn-origin.js';
import { readTurnProgress } from './turn-progress.js';
import { openTurnScope, persist, userMessages } from './turn-scope.js';

/** `skipped`: nothing to do and nothing emitted (the items already belong to another turn). */
export type SegmentResult = 'ended' | 'skipped';

/**
 * A turn for user messages: checks every origin, writes the messages not yet in the transcript
 * (by event id, so a retry never writes one twice), then runs the loop.
 */
export async function runMessageTurn(
  core: RunnerCore,
  turn: TurnContext,
  turnId: string,
  items: readonly InboxItem[],
  latch: OutcomeLatch,
): Promise<SegmentResult> {
  const entries: { item: InboxItem; origin: TurnOrigin }[] = [];
  for (const item of items) {
    const parsed = parseTurnOrigin(item.payload);
    if (!parsed.ok) {
      core.logger.warn(
        { turnId, eventId: item.eventId, problem: parsed.problem },
        'inbox item without a valid origin',
      );
      await latch.failed({
        turnId,
        sessionKey: turn.sessionKey,
        origin: undefined,
        ...platformNamedBy(item.payload),
        code: 'invalid_request',
        message: `This message could not be processed: its origin is malformed (${parsed.problem}).`,
      });
      return 'ended';
    }
    entries.push({ item, origin: parsed.origin });
  }
  const origin = entries.at(-1)!.origin;

  // Only a run that came before (a retry or a recovery) can have left a parked record.
  const parked = turn.attempt > 1 ? await core.store.getParkedTurn(turnId) : undefined;
  if (parked !== undefined && parked.reason !== RESUMING) {
    // The turn parked in an earlier run that died before returning: say so again (deduped downstream).
    const state = parkedStateSchema.safeParse(parked.state);
    if (state.success) {
      await latch.parked(parkedEventOf(state.data));
      return 'ended';
    }
  }

  const opened = await openTurnScope(core, {
    turnId,
    sessionKey: turn.sessionKey,
    origin,
    signal: turn.signal,
    takeSteering: () => turn.takeSteering(),
    latch,
  });
  if (!opened.ok) {
    await latch.failed({
      turnId,
      sessionKey: turn.sessionKey,
      origin,
      code: opened.code,
      message: opened.message,
    });
    return 'ended';
  }
  const scope = opened.scope;
  const state = readTurnProgress(scope.transcript, turnId);
  const seen = new Set(state.eventIds);
  const fresh = entries.filter(({ item }) => {
    if (seen.has(item.eventId)) return false;
    seen.add(item.eventId);
    return true;
  });
  if (fresh.length === 0 && !state.started) {
    scope.log.debug('every item of this turn is already in the transcript under another turn; nothing to do');
    return 'skipped';
  }
  for (const entry of entries) {
    if (entry.origin.images !== undefined) scope.images.set(entry.item.eventId, entry.origin.images);
  }
  await persist(scope, userMessages(turnId, fresh));
  await continueTurn(scope);
  if (parked?.reason === RESUMING && latch.outcome !== 'parked') await core.store.deleteParkedTurn(turnId);
  return 'ended';
}

/** The platform a malformed origin still names validly, so its failure reaches that platform's listeners. */
function platformNamedBy(payload: unknown): { platform?: string } {
  if (typeof payload !== 'object' || payload === null) return {};
  const platform = (payload as { platform?: unknown }).platform;
  return typeof platform === 'string' && PLATFORM_TOKEN.test(platform) ? { platform } : {};
}
