/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Action prompts: approval and clarify messages shown in a chat, and how they were answered. */
export interface ActionPromptStore {
  /**
   * Stores the prompt shown for a parked turn. Saving an existing id again updates where it was
   * shown and what it answers, but never reopens a resolved prompt.
   */
  saveActionPrompt(input: ActionPromptInput): Promise<void>;
  getActionPrompt(promptId: string): Promise<ActionPromptRecord | undefined>;
  /** The newest prompt shown for an approval request id. */
  findActionPromptByRequest(requestId: string): Promise<ActionPromptRecord | undefined>;
  /** The newest prompt shown as this platform message (a reply to a clarify question). */
  findActionPromptByMessage(
    platform: string,
    chatId: string,
    messageId: string,
  ): Promise<ActionPromptRecord | undefined>;
  /** Oldest first. */
  listActionPrompts(options?: ListActionPromptsOptions): Promise<ActionPromptRecord[]>;
  /** Marks a prompt answered; true only for the first caller (atomic), false when unknown or already resolved. */
  resolveActionPrompt(promptId: string, resolution: ActionPromptResolutionInput): Promise<boolean>;
}

export type ActionPromptKind = 'approval' | 'clarify';

export interface ActionPromptInput {
  /** Our id for the prompt (it travels in the button data). */
  readonly promptId: string;
  readonly kind: ActionPromptKind;
  readonly platform: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  /** The platform message id of the prompt. */
  readonly messageId: string;
  readonly sessionKey: string;
  readonly turnId: string;
  /** The park this prompt answers (`runner.resume({ parkId })`). */
  readonly parkId: string;
  /** The approval request id, for approvals. */
  readonly requestId?: string | undefined;
  /** Who the prompt is for (the requesting user). */
  readonly userId?: string | undefined;
  /** The answers offered (clarify choices, in button order); default none. */
  readonly choices?: readonly string[] | undefined;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
  readonly expiresAt?: number | undefined;
}

export interface ActionPromptResolution {
  /** What happened: `once`, `session`, `always`, `deny`, `timeout`, `answered`… (caller's words). */
  readonly outcome: string;
  readonly resolvedBy: string | undefined;
  /** A clarify question's answer (so a prompt settled before its message id was saved shows it). */
  readonly answer: string | undefined;
  readonly at: number;
}

export interface ActionPromptRecord {
  readonly promptId: string;
  readonly kind: ActionPromptKind;
  readonly platform: string;
  readonly chatId: string;
  readonly threadId: string | undefined;
  readonly messageId: string;
  readonly sessionKey: string;
  readonly turnId: string;
  readonly parkId: string;
  readonly requestId: string | undefined;
  readonly userId: string | undefined;
  /** The answers offered, in button order (empty for approvals). */
  readonly choices: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
  /** Undefined while the prompt is open. */
  readonly resolved: ActionPromptResolution | undefined;
}

export interface ActionPromptResolutionInput {
  readonly outcome: string;
  readonly resolvedBy?: string | undefined;
  /** A clarify question's answer, stored with the resolution. */
  readonly answer?: string | undefined;
  /** Defaults to the store clock. */
  readonly at?: number;
}

export interface ListActionPromptsOptions {
  readonly sessionKey?: string;
  /** Only prompts not yet resolved. */
  readonly pendingOnly?: boolean;
  /** Only prompts whose `expiresAt` is at or before this time. */
  readonly expiredBy?: number;
}
