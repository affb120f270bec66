import { z } from 'zod';
import { turnOriginSchema } from './turn-origin.js';

/** Reason of the recovery record a resume writes while it runs (see `resume-turn.ts`). */
export const RESUMING = 'resuming';

const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/** How the pending call of a resumed turn is answered; kept so a crashed resume can finish it. */
export const resolutionSchema = z.discriminatedUnion('kind', [
  /** The result is known (a clarify answer, a denial): it is written as the call's result. */
  z.object({ kind: z.literal('result'), content: z.string() }),
  /**
   * The call runs again (after an approval, or to ask again). `grantedRequestId`: the "allow
   * once" of that approval request was claimed for this run and not used yet; a retry after a
   * crash before the command started runs it without asking again (once: the grant is dropped
   * from this record when the command reaches the gate).
   */
  z.object({ kind: z.literal('dispatch'), grantedRequestId: z.string().min(1).optional() }),
]);

/**
 * What the runner saves when a turn parks, as the parked turn's `state` (JSON in the store).
 * The transcript stays the source of truth for what ran; this keeps what the transcript cannot:
 * the origin to answer to, the session id the turn writes to, and what the pause was about.
 */
export const parkedStateSchema = z.object({
  version: z.literal(1),
  turnId: z.string().min(1),
  sessionKey: z.string().min(1),
  sessionId: z.string().min(1),
  origin: turnOriginSchema,
  /** Changes with every park of the turn; a resume naming an older park is ignored. */
  parkId: z.string().min(1),
  reason: z.string().min(1),
  /** The tool call that paused; it has no result in the transcript yet. */
  toolCall: toolCallSchema,
  /** The approval request or the clarify question, as the tool paused with it. */
  request: z.json(),
  /** Calls of the same step that had not run yet; they run after the pending one. */
  remaining: z.array(toolCallSchema),
  parkedAt: z.number(),
  /** Set on the recovery record only. */
  resolution: resolutionSchema.optional(),
});

export type ParkedState = z.infer<typeof parkedStateSchema>;
export type Resolution = z.infer<typeof resolutionSchema>;

/** The fields of an approval request the runner needs to resume it. */
export const approvalRequestSchema = z.object({
  id: z.string().min(1),
  command: z.string(),
  cwd: z.string(),
  commandHash: z.string().min(1),
  expiresAt: z.number(),
  findings: z
    .array(
      z.object({
        key: z.string(),
        description: z.string(),
        tier: z.enum(['hardline', 'sudo_guard', 'deny_rule', 'dangerous']),
      }),
    )
    .default([]),
  /** True when this call's `ask` joined an identical pending request (an `once` then covers only the first). */
  coalesced: z.boolean().default(false),
});
