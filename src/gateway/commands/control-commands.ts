import type { CommandImpl } from './command-context.js';
import { plural } from './command-text.js';
import { cancelPendingApprovals, resumeAfterDecision } from './resume-after-decision.js';

const TITLE_CHARS = 100;

/**
 * `/new [title]` (`/reset`): stops the running turn, cancels the session's approvals (grants and
 * yolo go too) and gives the chat a fresh session id. Model and toolset choices are kept.
 */
export const newCommand: CommandImpl = async (run) => {
  const { queue, approvals, store } = run.deps;
  const key = run.input.sessionKey;
  const interrupted = await queue.interrupt(key);
  const pending = await approvals.listPending(key);
  const cancelled = await approvals.clearSession(key);
  // The parked turns end with a "cancelled" result in the old session instead of waiting to expire.
  for (const request of pending) await resumeAfterDecision(run, request.id, 'deny');
  const { session } = await store.rotateSession(key);
  const title = run.args.trim().replace(/\s+/g, ' ').slice(0, TITLE_CHARS);
  if (title !== '') await store.updateSession(key, { title });

  const lines = [`✨ Fresh start: new session ${session.sessionId}${title === '' ? '' : ` — "${title}"`}.`];
  if (interrupted) lines.push('The task that was running has been stopped.');
  if (cancelled > 0) lines.push(`Cancelled ${plural(cancelled, 'pending approval')}; nothing of it ran.`);
  const kept = [
    session.modelOverride === undefined ? undefined : `model ${session.modelOverride}`,
    session.toolsetOverrides === undefined ? undefined : 'tool choices',
  ].filter((entry) => entry !== undefined);
  if (kept.length > 0) lines.push(`Kept this chat's ${kept.join(' and ')}.`);
  return [lines.join('\n')];
};

/** `/stop`: interrupts the running turn and cancels the session's pending approvals. */
export const stopCommand: CommandImpl = async (run) => {
  const interrupted = await run.deps.queue.interrupt(run.input.sessionKey);
  const cancelled = await cancelPendingApprovals(run, `stopped with ${run.p}stop`);
  if (!interrupted && cancelled === 0) return ['Nothing is running here, so there is nothing to stop.'];
  const lines: string[] = [];
  if (interrupted) lines.push('⏹ Stopped the running task.');
  if (cancelled > 0) {
    lines.push(
      `${interrupted ? 'Also cancelled' : '⏹ Cancelled'} ${plural(cancelled, 'pending approval')}; nothing of it ran.`,
    );
  }
  return [lines.join(' ')];
};

/**
 * `/queue <message>`: hands the text to the session as a message for the next turn. It is an
 * ordinary `message` item built by the caller (`makeItem`), so it keeps the chat's origin.
 */
export const queueCommand: CommandImpl = async (run) => {
  const text = run.args.trim();
  if (text === '') return [`Usage: ${run.p}queue <message> — the message waits for the next turn.`];
  const { makeItem } = run.input;
  if (makeItem === undefined) return [`${run.p}queue is not available on this platform.`];
  const result = await run.deps.queue.submit({ ...makeItem(text), steerable: false });
  switch (result.status) {
    case 'started':
      return ['Nothing was running, so I am on it now.'];
    case 'duplicate':
      return ['That message was already queued.'];
    case 'queued':
      return ['⏳ Queued for the next turn; the current one carries on.'];
    // The caller's item decides whether the queue may steer or interrupt with it (busy mode).
    case 'steered':
      return ['⏩ Passed to the running task; it picks it up at its next step.'];
    case 'interrupting':
      return ['⚡ Queued; the running task was asked to stop, so this runs next.'];
  }
};
