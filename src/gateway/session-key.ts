import { HermesError } from '../errors/hermes-error.js';
import { timeOrderedId } from '../lib/time-ordered-id.js';
import { CHAT_TYPES, type ChatType } from '../platforms/adapter.js';

/**
 * Session keys follow Hermes' layout so keys stay comparable with its state:
 *
 *   agent:<namespace>:<platform>:<chat_type>:<chat_id>[:<thread_id>][:<user_id>]
 *
 * A DM is keyed by its chat alone (plus the thread when there is one). In groups, channels and
 * webhooks the sender is appended (one session per user) unless the message sits in a thread,
 * where the session is shared by default. Webhook ids are compound (`webhook:<route>:<id>`), so
 * the chat, thread and user parts may themselves be several `:`-joined tokens.
 *
 * Keys end up in SQL rows, Redis keys, log lines and possibly file names, so every token is
 * checked: ASCII letters, digits and `_ - . @ + = ~` only, no `..`, not `.` alone, bounded length.
 */

/** Upper bound of one `:`-separated token. */
export const MAX_TOKEN_LENGTH = 128;
/** Upper bound of a whole session key. */
export const MAX_SESSION_KEY_LENGTH = 512;

const TOKEN_PATTERN = /^[A-Za-z0-9_.@+=~-]+$/;
const PLATFORM_PATTERN = /^[a-z][a-z0-9_-]*$/;
const DRIVE_PREFIX = /^[A-Za-z]:/;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export interface SessionKeyInput {
  readonly platform: string;
  readonly chatType: ChatType;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  readonly userId?: string | undefined;
  /** Append the user in groups, channels and webhooks (Hermes `group_sessions_per_user`). */
  readonly perUserInGroups?: boolean;
  /** Append the user inside threads too (Hermes `thread_sessions_per_user`). */
  readonly perUserInThreads?: boolean;
  /** Profile namespace; `main` for the default profile. */
  readonly namespace?: string;
}

export interface ParsedSessionKey {
  readonly namespace: string;
  readonly platform: string;
  readonly chatType: ChatType;
  /**
   * The tokens after the chat type: the chat id first, then the optional thread and user
   * tokens. The layout does not mark which optional parts are present (nor where a compound
   * webhook id ends), so callers that need them keep the original inbound event.
   */
  readonly rest: readonly string[];
}

function invalid(message: string): HermesError {
  return new HermesError('session_key_invalid', message);
}

/** True when `value` is one safe token (no `:`). */
export function isSafeToken(value: string): boolean {
  return (
    value.length > 0 &&
    value.length <= MAX_TOKEN_LENGTH &&
    TOKEN_PATTERN.test(value) &&
    value !== '.' &&
    !value.includes('..')
  );
}

/** Describes a rejected value without echoing it in full (it may be hostile or huge). */
function preview(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 40 ? `${printable.slice(0, 40)}…` : printable);
}

function checkToken(what: string, value: string): string {
  if (!isSafeToken(value)) {
    throw invalid(
      `${what} ${preview(value)} is not a safe token (1-${MAX_TOKEN_LENGTH} of A-Z a-z 0-9 _ - . @ + = ~, no "..")`,
    );
  }
  return value;
}

/** A chat, thread or user id: one or more safe tokens joined by `:`; never drive-letter shaped. */
function checkCompound(what: string, value: string): string {
  if (DRIVE_PREFIX.test(value)) throw invalid(`${what} ${preview(value)} looks like a drive letter`);
  for (const part of value.split(':')) checkToken(what, part);
  return value;
}

function isChatType(value: string): value is ChatType {
  return (CHAT_TYPES as readonly string[]).includes(value);
}

function checkPlatform(value: string): string {
  if (value.length > 32 || !PLATFORM_PATTERN.test(value)) {
    throw invalid(`platform ${preview(value)} must be lowercase letters, digits, _ or - (at most 32)`);
  }
  return value;
}

function checkLength(key: string): string {
  if (key.length > MAX_SESSION_KEY_LENGTH) {
    throw invalid(`session key is longer than ${MAX_SESSION_KEY_LENGTH} characters`);
  }
  return key;
}

/** Builds the session key of an inbound message; throws `session_key_invalid` on unsafe parts. */
export function buildSessionKey(input: SessionKeyInput): string {
  const namespace = checkToken('namespace', input.namespace ?? 'main');
  const platform = checkPlatform(input.platform);
  if (!isChatType(input.chatType)) throw invalid(`chat type ${preview(String(input.chatType))} is unknown`);
  const parts = ['agent', namespace, platform, input.chatType, checkCompound('chat id', input.chatId)];
  const threadId = input.threadId === undefined || input.threadId === '' ? undefined : input.threadId;
  const userId = input.userId === undefined || input.userId === '' ? undefined : input.userId;
  if (threadId !== undefined) parts.push(checkCompound('thread id', threadId));
  if (input.chatType !== 'dm' && userId !== undefined) {
    const inThread = threadId !== undefined || input.chatType === 'thread';
    const perUser = inThread ? (input.perUserInThreads ?? false) : (input.perUserInGroups ?? true);
    if (perUser) parts.push(checkCompound('user id', userId));
  }
  return checkLength(parts.join(':'));
}

/** Splits and validates a session key; throws `session_key_invalid` when it is not one of ours. */
export function parseSessionKey(key: string): ParsedSessionKey {
  checkLength(key);
  const parts = key.split(':');
  const [head, namespace, platform, chatType, ...rest] = parts;
  if (head !== 'agent' || namespace === undefined || platform === undefined || chatType === undefined) {
    throw invalid(`session key ${preview(key)} does not start with agent:<namespace>:<platform>:<chat_type>`);
  }
  checkToken('namespace', namespace);
  checkPlatform(platform);
  if (!isChatType(chatType)) throw invalid(`chat type ${preview(chatType)} is unknown`);
  if (rest.length === 0) throw invalid(`session key ${preview(key)} has no chat id`);
  for (const part of rest) checkToken('session key part', part);
  return { namespace, platform, chatType, rest };
}

/** Returns the key unchanged when it is valid; throws `session_key_invalid` otherwise. */
export function assertSessionKey(key: string): string {
  parseSessionKey(key);
  return key;
}

export function isValidSessionKey(key: string): boolean {
  try {
    parseSessionKey(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when `key` is `prefix` itself or lies below it on a `:` boundary, so the prefix
 * `agent:main:telegram:dm:12` does not match the chat `123`.
 */
export function sessionKeyHasPrefix(key: string, prefix: string): boolean {
  return key === prefix || key.startsWith(prefix.endsWith(':') ? prefix : `${prefix}:`);
}

/**
 * A new session id: a UUIDv7 (RFC 9562; 36 characters, 74 random bits after a millisecond
 * timestamp). Ids made one after another sort together, so the store's indexes on session ids
 * (sessions, session_ids, messages) grow at their end instead of dirtying a random page per new
 * session in every commit.
 */
export function newSessionId(): string {
  return timeOrderedId();
}

/** Returns the id unchanged when it is a valid session id; throws `session_key_invalid` otherwise. */
export function assertSessionId(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) {
    throw invalid(`session id ${preview(id)} must be 8-64 URL-safe characters (A-Z a-z 0-9 _ -)`);
  }
  return id;
}
