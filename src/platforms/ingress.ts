/**
 * The narrow ingress interface: what a platform that starts turns by itself (the OpenAI-compatible
 * API server, inbound webhooks, a platform's HTTP callbacks) needs from the gateway, and nothing
 * more. Chat adapters hand their events to an `InboundSink` (adapter.ts) instead, which does access,
 * commands and buttons; this interface is for unattended or pre-authenticated input.
 *
 *   sessionKey(input)            the session key of a conversation (Hermes' layout, checked)
 *   checkOrigin(origin)          what a turn would refuse in this origin, before anything is queued
 *   submit(request)              queues one input; `duplicate` when its event id was seen already
 *   watchTurns(platform)         follows the turns a platform started: progress, then the outcome
 *   claimEvent / releaseEvent    dedupe of the platform's own delivery ids, across processes
 *   appendHistory(key, msgs)     earlier messages of a stand-alone conversation (before its turn)
 *   setSessionToolsets(key, ts)  the toolsets of a new session (a webhook route that widens them)
 *   unavailableReason()          why no turn can be answered now (no model configured), or undefined
 *   answerPrompt(answer)         answers a parked turn's prompt (approval or question), first answer wins
 *   stopSession(key, by)         interrupts the session's turn and cancels its pending approvals
 *
 * Implemented by the gateway (`gateway/ingress/create-platform-ingress.ts`); platforms receive it
 * when their HTTP routes are mounted (`PlatformRoutes.register`, platform.ts).
 */

import type { ChatType } from './adapter.js';

/** Parts of a session key; see `gateway/session-key.ts` for the layout and the checks. */
export interface SessionKeyInput {
  /** Platform token: lowercase letters, digits, `_` and `-` (`api_server`, `webhook`…). */
  readonly platform: string;
  readonly chatType: ChatType;
  /** One or more `:`-joined tokens of A-Z a-z 0-9 `_ - . @ + = ~`. */
  readonly chatId: string;
  readonly threadId?: string | undefined;
  /** Appended in groups, channels and webhooks (one session per user there). */
  readonly userId?: string | undefined;
}

/** An image sent with a message: an http(s) URL or a `data:image/...;base64,` URL. */
export interface TurnImageInput {
  readonly url: string;
  readonly detail?: 'auto' | 'low' | 'high';
}

/** Where an input came from and how its turn runs (checked again by the turn runner). */
export interface TurnOriginInput {
  readonly platform: string;
  readonly chatType: ChatType;
  readonly chatId: string;
  readonly threadId?: string;
  readonly userId?: string;
  /** Display name of the sender. */
  readonly userName?: string;
  /** True when nobody can answer an approval prompt or a question (webhooks, API clients). */
  readonly unattended: boolean;
  /** Toolset preset (`hermes-api-server`, `hermes-webhook`); defaults to `hermes-<platform>`. */
  readonly toolset?: string;
  /** Model for this input; wins over the session's choice and `model.name`. */
  readonly model?: string;
  readonly images?: readonly TurnImageInput[];
}

/** One input for a session's next turn. */
export interface TurnRequest {
  readonly sessionKey: string;
  /** The platform's id of this input: the dedupe key, and how `watchTurns` finds its turn. */
  readonly eventId: string;
  readonly text: string;
  readonly origin: TurnOriginInput;
  /** Epoch milliseconds when the platform received it. */
  readonly receivedAt: number;
  /** False when the id is unique by construction (a fresh UUID): not remembered for dedupe. */
  readonly dedupe?: boolean;
  /** True: a turn of its own with its own answer, never merged with other waiting inputs. */
  readonly solo?: boolean;
}

/** What `submit` did: the queue's status (`duplicate`: the event id was seen, nothing stored). */
export type IngressSubmitStatus = 'started' | 'queued' | 'steered' | 'interrupting' | 'duplicate';

/** A progress event of a watched turn (`kind`: `text_delta`, `tool_started`, `model_retry`…). */
export interface TurnProgressEvent {
  readonly type: 'progress';
  readonly progress: Readonly<Record<string, unknown>>;
}

/** How a watched turn ended, or `timeout` when it did not end in time. */
export type TurnEnd =
  | {
      readonly type: 'final';
      readonly turnId: string;
      readonly sessionKey: string;
      readonly text: string;
      /** Tokens of the turn's model calls, summed (absent when the model reported none). */
      readonly usage?: { readonly promptTokens: number; readonly completionTokens: number } | undefined;
    }
  | {
      readonly type: 'failed';
      readonly turnId: string;
      readonly sessionKey: string;
      readonly code: string;
      readonly message: string;
    }
  /**
   * The turn waits for a human decision: `reason` `approval` (payload: the approval request) or
   * `clarify` (payload: `{ question, choices }`); `parkId` names this wait (see `answerPrompt`).
   */
  | {
      readonly type: 'parked';
      readonly turnId: string;
      readonly sessionKey: string;
      readonly reason: string;
      readonly parkId?: string;
      readonly payload?: unknown;
    }
  | { readonly type: 'timeout' };

export interface TurnWatch {
  /** Settles with the turn's outcome, or `timeout`. */
  readonly done: Promise<TurnEnd>;
  /** Stops waiting (the input could not be submitted after all). */
  cancel(): void;
}

export interface TurnWatcher {
  /**
   * Waits for the turn that handles `eventId`: progress goes to `onProgress`, and `done` settles
   * with its outcome (or a timeout). Call it BEFORE submitting the input, so nothing is missed.
   */
  watch(options: {
    readonly eventId: string;
    readonly timeoutMs: number;
    readonly onProgress?: (event: TurnProgressEvent) => void;
  }): Promise<TurnWatch>;
  /** Ends every wait (as `timeout`) and stops listening. */
  close(): Promise<void>;
}

/** An earlier message of a stand-alone conversation (the API server's request history). */
export interface HistoryMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The prompt of a parked turn a platform started, as its `parked` outcome described it. */
export interface PromptRef {
  readonly platform: string;
  readonly chatId: string;
  readonly sessionKey: string;
  readonly turnId: string;
  readonly parkId: string;
  /** `approval` or `clarify`. */
  readonly reason: string;
  /** The parked event's payload (the approval request, or the question and its choices). */
  readonly payload: unknown;
  /** The user the turn runs for (the requester of an approval). */
  readonly userId?: string | undefined;
}

/** An answer to a prompt: an approval choice, or the answer to a question. */
export type PromptAnswer =
  | { readonly kind: 'approval'; readonly choice: 'once' | 'session' | 'always' | 'deny' }
  | { readonly kind: 'clarify'; readonly answer: string };

/**
 * What answering did: `recorded` (this answer won and the turn resumes), `already_decided`
 * (another answer won first), `expired`, `forbidden` (not the requester), `scope_refused` (that
 * choice is not offered for this command), `invalid` (the prompt is not readable or the answer
 * does not fit it).
 */
export type PromptAnswerStatus =
  | 'recorded'
  | 'already_decided'
  | 'expired'
  | 'forbidden'
  | 'scope_refused'
  | 'invalid';

export interface Ingress {
  /** Builds a session key; throws HermesError `session_key_invalid` on unsafe parts. */
  sessionKey(input: SessionKeyInput): string;
  /** What the turn runner would refuse in `origin` (a bad image URL, an overlong id…), or undefined. */
  checkOrigin(origin: TurnOriginInput): string | undefined;
  /** Queues one input; resolves once it is durably accepted. Throws when it could not be queued. */
  submit(request: TurnRequest): Promise<{ readonly status: IngressSubmitStatus }>;
  /**
   * Follows the turns `platform` started, one subscription for all of them. `idsMintedHere`: the
   * event ids are minted in this process (a random request id), so only this process waits for
   * them and their events need not travel through Redis; leave it off for ids from outside.
   */
  watchTurns(platform: string, options?: { readonly idsMintedHere?: boolean }): TurnWatcher;
  /** Records a delivery id of the platform for `ttlMs`; false when it was recorded already. */
  claimEvent(platform: string, eventId: string, ttlMs: number): Promise<boolean>;
  /** Forgets a recorded delivery id, so the sender's retry of an input that was not queued runs. */
  releaseEvent(platform: string, eventId: string): Promise<void>;
  /** Appends earlier messages to a conversation's transcript, in order. */
  appendHistory(sessionKey: string, messages: readonly HistoryMessage[]): Promise<void>;
  /** Replaces the toolsets of a session (creating it when new). */
  setSessionToolsets(sessionKey: string, toolsets: readonly string[]): Promise<void>;
  /** Why turns cannot be answered right now (no model configured…), or undefined. */
  unavailableReason(): string | undefined;
  /**
   * Answers a parked turn's prompt through the chat buttons' path: the gate records the first
   * decision atomically (a question's prompt is resolved atomically), then the turn resumes.
   * `by` names who answered (the requester's user id, or an operator when `admin`).
   */
  answerPrompt(
    prompt: PromptRef,
    answer: PromptAnswer,
    by: { readonly userId: string; readonly name?: string; readonly admin?: boolean },
  ): Promise<{ readonly status: PromptAnswerStatus }>;
  /**
   * Interrupts the session's running turn and cancels its pending approvals (as `/stop` does);
   * `pending`: a prompt the caller knows is open (a question is then ended without an answer).
   */
  stopSession(
    sessionKey: string,
    pending?: PromptRef,
  ): Promise<{ readonly interrupted: boolean; readonly cancelled: number }>;
}
