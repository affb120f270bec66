import { z } from 'zod';
import { CHAT_TYPES } from '../../platforms/adapter.js';

/**
 * Where a message came from and how to answer it. Ingress puts one in `InboxItem.payload` of
 * every `message` item; the runner checks it here before anything else happens, so a malformed
 * payload ends the turn with a clear `failed` event instead of an exception deep in the loop.
 */

const id = z.string().min(1).max(256);

/** A platform token as in session keys (`telegram`, `api_server`…). */
export const PLATFORM_TOKEN = /^[a-z][a-z0-9_-]{0,31}$/;

/** An image sent with the message: an http(s) URL or a `data:image/...;base64,` URL. */
export const turnImageSchema = z
  .object({
    url: z
      .string()
      .max(20_000_000)
      .regex(
        /^(?:https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i,
        'must be an http(s) URL or a data:image URL',
      ),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  })
  .strict();

export const turnOriginSchema = z
  .object({
    /** Platform token as in the session key (`telegram`, `discord`, `feishu`, `webhook`, `api_server`…). */
    platform: z.string().regex(PLATFORM_TOKEN, 'must be a lowercase platform token'),
    chatType: z.enum(CHAT_TYPES),
    chatId: id,
    threadId: id.optional(),
    userId: id.optional(),
    /** Display name of the sender, shown to the model in shared chats. */
    userName: z.string().max(256).optional(),
    /** True when nobody can answer an approval prompt or a question (webhooks, API clients). */
    unattended: z.boolean(),
    /** Toolset preset for this chat (e.g. `hermes-api-server`); defaults to `hermes-<platform>`. */
    toolset: z.string().min(1).max(64).optional(),
    /** Model for this request; wins over the session's `/model` choice and `model.name`. */
    model: z.string().min(1).max(200).optional(),
    /** Platform message id the answer should reply to. */
    replyToMessageId: id.optional(),
    images: z.array(turnImageSchema).max(8).optional(),
    /** Platform-specific extras the runner passes through untouched. */
    platformOptions: z.record(z.string(), z.json()).optional(),
  })
  .strict();

export type TurnOrigin = z.infer<typeof turnOriginSchema>;
export type TurnImage = z.infer<typeof turnImageSchema>;

/** What an approval decision looked like to the chat side; informational (the gate's record wins). */
export const RESUME_DECISIONS = ['once', 'session', 'always', 'deny', 'timeout'] as const;

/** Payload of an `InboxItem` of kind `resume` (built by `runner.resume`). */
export const resumePayloadSchema = z
  .object({
    turnId: z.string().min(1).max(200),
    /** The park this resume answers; a resume for an older park of the same turn is ignored. */
    parkId: z.string().min(1).max(100).optional(),
    decision: z.enum(RESUME_DECISIONS).optional(),
    /** The user's answer to a clarify question. */
    answer: z.string().max(20_000).optional(),
  })
  .strict();

export type ResumePayload = z.infer<typeof resumePayloadSchema>;

/** Parses an origin; on failure returns a short description of what is wrong. */
export function parseTurnOrigin(
  value: unknown,
): { readonly ok: true; readonly origin: TurnOrigin } | { readonly ok: false; readonly problem: string } {
  const result = turnOriginSchema.safeParse(value);
  if (result.success) return { ok: true, origin: result.data };
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(payload)'}: ${issue.message}`);
  return { ok: false, problem: problems.join('; ') };
}
