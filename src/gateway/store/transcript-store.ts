/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Transcripts: the messages of each session id, append-only, and their full-text index. */
export interface TranscriptStore {
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
