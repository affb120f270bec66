/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Sessions: one per session key, with the current session id and chat preferences. */
export interface SessionStore {
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
