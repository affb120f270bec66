import type { ListOutboxOptions, OutboxEntry, OutboxInput, OutboxOutcome } from './outbox-entry.js';

// The outbox shapes live in their own file; re-exported so the store's callers keep one import.
export * from './outbox-entry.js';

/**
 * The gateway's durable state behind one interface: sessions, transcripts, inbound dedupe,
 * delivery receipts, pairing, parked turns, action prompts, delivery failures, home channels and
 * the full-text index for `session_search`.
 * Every method returns a Promise so a networked database can implement it later; the embedded
 * SQLite store (`createSqliteGatewayStore`) is synchronous inside.
 *
 * Times are epoch milliseconds from the store's clock. Optional values are `undefined` when
 * absent; in patches `null` clears a value and `undefined` leaves it alone.
 */
export interface GatewayStore {
  // --- sessions --------------------------------------------------------------------------
  /** The session of a key, created (with a fresh session id) on first use. */
  getOrCreateSession(key: string): Promise<SessionRecord>;
  getSession(key: string): Promise<SessionRecord | undefined>;
  /**
   * `/new`: gives the key a fresh session id. Model and toolset overrides are kept (they are
   * chat preferences); the title and the yolo flag are cleared (they belong to the old
   * conversation). Creates the session when the key is new.
   */
  rotateSession(key: string): Promise<RotateResult>;
  /** Applies a patch, creating the session first when the key is new. */
  updateSession(key: string, patch: SessionPatch): Promise<SessionRecord>;
  /** Sessions, most recently updated first; `prefix` matches on `:` boundaries. */
  listSessions(options?: ListSessionsOptions): Promise<SessionRecord[]>;
  /** The key a session id belongs (or belonged) to. */
  sessionKeyOf(sessionId: string): Promise<string | undefined>;

  // --- transcript --------------------------------------------------------------------------
  /** Appends messages in one transaction (all or none); returns them with their seq numbers. */
  appendMessages(sessionId: string, messages: readonly NewMessage[]): Promise<StoredMessage[]>;
  /** Messages of a session in seq order. */
  listMessages(sessionId: string, options?: ListMessagesOptions): Promise<StoredMessage[]>;
  countMessages(sessionId: string): Promise<number>;
  /**
   * Full-text search over user and assistant messages, best matches first (newest first when
   * every term is shorter than three characters). Any input is
   * accepted: it is reduced to quoted terms that must all occur, so FTS5 syntax in the query is
   * matched literally, never parsed. Empty input finds nothing.
   */
  searchMessages(query: string, options?: SearchMessagesOptions): Promise<SearchHit[]>;

  // --- inbound dedupe and delivery receipts -------------------------------------------------
  /**
   * Records an inbound event id; true the first time, false while a previous record of the
   * same id is alive (a platform retry). Atomic across callers. Expired rows are pruned as it goes.
   */
  markEventProcessed(platform: string, eventId: string, ttlMs: number): Promise<boolean>;
  /**
   * Forgets a recorded inbound event id, so the platform's retry of an event that could not be
   * accepted after all (its queueing failed) is processed instead of dropped as a duplicate.
   */
  releaseEvent(platform: string, eventId: string): Promise<void>;
  /** Stores a delivery receipt; the first record of a key wins (`created: false` afterwards). */
  recordDelivery(input: DeliveryInput): Promise<RecordDeliveryResult>;
  getDelivery(receiptKey: string): Promise<DeliveryReceipt | undefined>;

  // --- pairing --------------------------------------------------------------------------
  /** Stores a pending pairing code (codes are compared upper-cased). Replaces a code of the same value. */
  addPairingCode(input: PairingCodeInput): Promise<PairingCode>;
  /** Pending codes not yet expired, oldest first. */
  listPairingCodes(platform?: string): Promise<PairingCode[]>;
  /**
   * Approves the user behind a pending, unexpired code and removes the code, atomically.
   * Undefined when the code is unknown or expired.
   */
  consumePairingCode(platform: string, code: string, approvedBy: string): Promise<PairedUser | undefined>;
  /** Drops pending codes (of one platform, or all); returns how many. */
  clearPairingCodes(platform?: string): Promise<number>;
  isPairedUser(platform: string, userId: string): Promise<boolean>;
  listPairedUsers(platform?: string): Promise<PairedUser[]>;
  /** Removes an approved user; false when there was none. */
  revokePairedUser(platform: string, userId: string): Promise<boolean>;

  // --- parked turns ------------------------------------------------------------------------
  /** Saves (or replaces) the state of a turn waiting for something, e.g. an approval. */
  saveParkedTurn(input: ParkedTurnInput): Promise<void>;
  getParkedTurn(turnId: string): Promise<ParkedTurn | undefined>;
  /** Removes a parked turn and returns it, atomically: exactly one caller gets it. */
  takeParkedTurn(turnId: string): Promise<ParkedTurn | undefined>;
  /** True when this call removed it. */
  deleteParkedTurn(turnId: string): Promise<boolean>;
  /** Oldest first. `expiredBy` keeps only turns whose `expiresAt` is at or before that time. */
  listParkedTurns(options?: ListParkedTurnsOptions): Promise<ParkedTurn[]>;

  // --- action prompts (approval / clarify messages in a chat) --------------------------------
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

  // --- delivery failures -------------------------------------------------------------------
  /** Remembers an answer that could not be delivered, to tell the chat on the next contact. */
  recordDeliveryFailure(input: DeliveryFailureInput): Promise<DeliveryFailure>;
  /** Removes and returns the failures recorded for a chat (oldest first), atomically: each is taken once. */
  takeDeliveryFailures(platform: string, chatId: string): Promise<DeliveryFailure[]>;

  // --- home channels -----------------------------------------------------------------------
  /**
   * Makes a chat the platform's home channel (`/sethome`), replacing the previous one; returns
   * the stored record.
   */
  setHomeChannel(input: HomeChannelInput): Promise<HomeChannel>;
  /** The platform's home channel, or undefined when none was set. */
  getHomeChannel(platform: string): Promise<HomeChannel | undefined>;

  // --- chat outbox ---------------------------------------------------------------------------
  /**
   * Records an answer (or failure notice) a chat platform must deliver, before its live event is
   * published. Idempotent on `id`: true when this call stored it, false when the id was known
   * (the first record, and its state, are kept).
   */
  enqueueOutbox(input: OutboxInput): Promise<boolean>;
  getOutbox(id: string): Promise<OutboxEntry | undefined>;
  /** Entries of a platform still to deliver, oldest first. */
  listOutbox(options: ListOutboxOptions): Promise<OutboxEntry[]>;
  /** Counts one delivery attempt of a pending entry; returns the attempts so far (0 when unknown or done). */
  markOutboxAttempt(id: string): Promise<number>;
  /** Marks an entry done (`delivered` by default); true only for the first caller. */
  completeOutbox(id: string, outcome?: OutboxOutcome): Promise<boolean>;

  // --- housekeeping ------------------------------------------------------------------------
  /**
   * Deletes expired dedupe rows and pairing codes, and receipts, resolved action prompts,
   * unannounced delivery failures and outbox entries older than the retention.
   */
  prune(options?: PruneOptions): Promise<PruneReport>;
  /** Throws when the store cannot serve (for `/readyz`). */
  ping(): Promise<void>;
  /** Releases the database; idempotent. Later calls fail with `store_failed`. */
  close(): Promise<void>;
}

export interface SessionRecord {
  readonly key: string;
  /** The current session id; `/new` replaces it. */
  readonly sessionId: string;
  readonly title: string | undefined;
  readonly modelOverride: string | undefined;
  /** Toolset names replacing the platform default; undefined = no override. */
  readonly toolsetOverrides: readonly string[] | undefined;
  readonly yolo: boolean;
  /** When the key was first seen. */
  readonly createdAt: number;
  /** When the current session id started. */
  readonly sessionStartedAt: number;
  readonly updatedAt: number;
}

export interface RotateResult {
  readonly session: SessionRecord;
  /** The id that was current before; undefined when the key was new. */
  readonly previousSessionId: string | undefined;
}

export interface SessionPatch {
  readonly title?: string | null;
  readonly modelOverride?: string | null;
  readonly toolsetOverrides?: readonly string[] | null;
  readonly yolo?: boolean;
}

export interface ListSessionsOptions {
  readonly prefix?: string;
  /** Default 50, at most 1000. */
  readonly limit?: number;
}

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** An assistant tool call in the OpenAI chat format. */
export interface ToolCallRecord {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface NewMessage {
  readonly role: MessageRole;
  /** Null for an assistant message that only calls tools. */
  readonly content: string | null;
  readonly toolCalls?: readonly ToolCallRecord[] | undefined;
  /** For role `tool`: the call this result answers. */
  readonly toolCallId?: string | undefined;
  /** Tool name (role `tool`) or participant name. */
  readonly name?: string | undefined;
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  /** Defaults to the store clock. */
  readonly createdAt?: number | undefined;
}

export interface StoredMessage {
  readonly sessionId: string;
  /** 1, 2, 3… within the session, in append order. */
  readonly seq: number;
  readonly role: MessageRole;
  readonly content: string | null;
  readonly toolCalls: readonly ToolCallRecord[] | undefined;
  readonly toolCallId: string | undefined;
  readonly name: string | undefined;
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
  readonly createdAt: number;
}

export interface ListMessagesOptions {
  /** Only messages with a larger seq. */
  readonly afterSeq?: number;
  /** At most this many (default: all). */
  readonly limit?: number;
  /** With `limit`: take the last messages instead of the first (still returned in seq order). */
  readonly tail?: boolean;
}

export interface SearchMessagesOptions {
  /** Restrict to session keys equal to or below this prefix (on `:` boundaries). */
  readonly sessionKeyPrefix?: string;
  /** Leave out one session (typically the current one). */
  readonly excludeSessionId?: string;
  /** Only user and assistant messages are indexed; other roles never match. Default: both. */
  readonly roles?: readonly MessageRole[];
  /** Default 20, at most 200. */
  readonly limit?: number;
}

export interface SearchHit {
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly seq: number;
  readonly role: MessageRole;
  /** An excerpt around the first match, matched terms wrapped in `**`. */
  readonly snippet: string;
  readonly createdAt: number;
}

export interface DeliveryInput {
  readonly receiptKey: string;
  readonly platform: string;
  readonly chatId: string;
  readonly messageIds: readonly string[];
}

export interface DeliveryReceipt extends DeliveryInput {
  readonly deliveredAt: number;
}

export interface RecordDeliveryResult {
  /** The stored receipt: this one, or the earlier one when the key was already recorded. */
  readonly receipt: DeliveryReceipt;
  readonly created: boolean;
}

export interface PairingCodeInput {
  readonly code: string;
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly expiresAt: number;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
}

export interface PairingCode {
  readonly code: string;
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface PairedUser {
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly approvedBy: string;
  readonly approvedAt: number;
}

export interface ParkedTurnInput {
  readonly turnId: string;
  readonly sessionKey: string;
  /** Any JSON-serialisable value. */
  readonly state: unknown;
  /** Why it is parked, e.g. `approval`. */
  readonly reason: string;
  readonly createdAt?: number;
  readonly expiresAt?: number | undefined;
}

export interface ParkedTurn {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly state: unknown;
  readonly reason: string;
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
}

export interface ListParkedTurnsOptions {
  readonly sessionKey?: string;
  readonly expiredBy?: number;
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

export interface DeliveryFailureInput {
  readonly platform: string;
  readonly chatId: string;
  readonly sessionKey: string;
  /** The turn (or other receipt key) whose answer was lost. */
  readonly turnId: string;
  /** Short description for logs and operators (never shown verbatim to users). */
  readonly error: string;
  /** Defaults to the store clock. */
  readonly at?: number;
}

export interface DeliveryFailure {
  readonly id: number;
  readonly platform: string;
  readonly chatId: string;
  readonly sessionKey: string;
  readonly turnId: string;
  readonly error: string;
  readonly at: number;
}

export interface HomeChannelInput {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  /** The user id that set it. */
  readonly setBy: string;
  /** Defaults to the store clock. */
  readonly setAt?: number;
}

/** Where a platform's notifications go when they are addressed to `home`. */
export interface HomeChannel {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId: string | undefined;
  readonly setBy: string;
  readonly setAt: number;
}

export interface PruneOptions {
  /** Receipts, resolved action prompts, delivery failures and outbox entries older than this are deleted; default 7 days. */
  readonly deliveryRetentionMs?: number;
}

export interface PruneReport {
  readonly events: number;
  readonly pairingCodes: number;
  readonly deliveries: number;
  readonly actionPrompts: number;
  readonly deliveryFailures: number;
  /** Outbox entries done (or never delivered) longer than the retention. */
  readonly outbox: number;
}

export const DEFAULT_DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
