/**
 * The adapter contract: what every chat platform (Telegram, Discord, Feishu, the in-memory test
 * adapter) offers the gateway, and what the gateway hands back. Versioned: an adapter states the
 * version it implements and the gateway refuses one it does not understand.
 *
 * Data flows one way: the adapter turns platform events into `InboundEvent`s and hands them to
 * the sink (ingress); everything outbound goes through the methods below (delivery). A platform
 * that receives events over HTTP (a webhook) brings its own routes (`routes`); how platforms are
 * configured and listed is in platform.ts, the parts every adapter shares in shared/.
 */

import type { PlatformRoutes } from './platform.js';

export const ADAPTER_CONTRACT_VERSION = 1 as const;

/** How a platform counts message length. */
export type LengthUnit = 'utf16' | 'codepoints';

export interface PlatformLimits {
  /** Longest text one message may carry, in `lengthUnit`s. */
  readonly maxMessageLength: number;
  readonly lengthUnit: LengthUnit;
  /** Largest `ActionChoice.data` in UTF-8 bytes (Telegram callback_data: 64). */
  readonly maxActionDataBytes: number;
  /** Native buttons; without them prompts are sent as text naming the commands. */
  readonly supportsButtons: boolean;
  readonly supportsEdit: boolean;
  readonly supportsTyping: boolean;
  /** What a command starts with on this platform (`/` almost everywhere). */
  readonly commandPrefix: string;
}

/**
 * Kinds of conversation, as they appear in session keys (`agent:main:<platform>:<chat type>:…`).
 * Chat platforms use the first four; `webhook` is the one-delivery session of an inbound webhook.
 */
export const CHAT_TYPES = ['dm', 'group', 'channel', 'thread', 'webhook'] as const;
export type ChatType = (typeof CHAT_TYPES)[number];

/** Where a message goes (or came from). */
export interface ChatAddress {
  readonly chatId: string;
  /** Forum topic / thread, when the platform has them. */
  readonly threadId?: string;
}

export interface ChatRef extends ChatAddress {
  readonly chatType: ChatType;
}

export interface Sender {
  readonly userId: string;
  readonly userName?: string;
  readonly isBot?: boolean;
  /**
   * Role (or group) ids the platform vouches for, e.g. a Discord member's roles; matched against
   * a platform's role allowlist (`platforms.discord.allowed_roles`).
   */
  readonly roles?: readonly string[];
}

export interface InboundImage {
  /** http(s) URL the gateway may fetch, or a data: URL. */
  readonly url: string;
}

interface InboundBase {
  readonly platform: string;
  /** The platform's id for this event (Telegram update_id, Discord interaction id…): dedupe key. */
  readonly eventId: string;
  readonly chat: ChatRef;
  readonly sender: Sender;
  /** Epoch milliseconds. */
  readonly receivedAt: number;
  /** Platform-specific extras the gateway passes through untouched (never in shared types). */
  readonly platformOptions?: Readonly<Record<string, unknown>>;
}

/** A user's text (and images). */
export interface InboundMessage extends InboundBase {
  readonly kind: 'message';
  readonly messageId: string;
  readonly text: string;
  readonly images?: readonly InboundImage[];
  /** Replying to this platform message id (e.g. an answer to a clarify question). */
  readonly replyToMessageId?: string;
  /** True when the bot was @-mentioned or replied to (groups answer only then, by default). */
  readonly addressed: boolean;
}

/** A command, parsed by the adapter where the platform marks them (`/approve session`). */
export interface InboundCommand extends InboundBase {
  readonly kind: 'command';
  readonly messageId: string;
  /** Without the prefix and without a `@botname` suffix, lower-cased. */
  readonly name: string;
  /** The rest of the text, trimmed. */
  readonly args: string;
  readonly addressed: boolean;
}

/** A button press on an action prompt. */
export interface InboundAction extends InboundBase {
  readonly kind: 'action';
  /** The prompt message the button belongs to. */
  readonly messageId: string;
  /** `ActionChoice.data` of the pressed button, as sent back by the platform (untrusted). */
  readonly data: string;
}

export type InboundEvent = InboundMessage | InboundCommand | InboundAction;

/**
 * What ingress answers for an event. `accepted` means it is durably recorded (or was a duplicate),
 * so the adapter may acknowledge it to the platform (move the Telegram offset, return 200…).
 * `rejected` means it was refused on purpose (unknown user, malformed) and must not be retried.
 * A thrown error means it was NOT accepted: the adapter must let the platform redeliver.
 */
export type InboundResult =
  | { readonly status: 'accepted' }
  | { readonly status: 'rejected'; readonly reason: string }
  /** For actions: a short notice to show the clicker (a toast), when the platform has one. */
  | { readonly status: 'answered'; readonly notice: string };

export type InboundSink = (event: InboundEvent) => Promise<InboundResult>;

export interface OutboundText {
  readonly text: string;
  /** `markdown` lets the adapter render basic formatting natively; `plain` sends it as is. */
  readonly format?: 'plain' | 'markdown';
  readonly replyToMessageId?: string;
  /**
   * The same for every attempt at sending this text (delivery passes the part's receipt key), so
   * a platform with idempotent sends (Discord's enforced nonce) never posts a retry twice.
   */
  readonly idempotencyKey?: string;
}

export interface ActionChoice {
  /** Sent back in `InboundAction.data`; at most `limits.maxActionDataBytes` bytes. */
  readonly data: string;
  readonly label: string;
  readonly style?: 'primary' | 'secondary' | 'danger';
}

/** A message with labelled choices: native buttons, or `fallbackText` where there are none. */
export interface ActionPrompt {
  readonly text: string;
  readonly choices: readonly ActionChoice[];
  /** The same prompt as plain text naming the commands that answer it (`/approve`, `/deny`). */
  readonly fallbackText: string;
  readonly format?: 'plain' | 'markdown';
}

export interface SentMessage {
  readonly messageId: string;
}

export interface AdapterHealth {
  readonly ok: boolean;
  readonly reason?: string;
}

export interface CommandInfo {
  readonly name: string;
  readonly description: string;
}

export interface PlatformAdapter {
  readonly contractVersion: typeof ADAPTER_CONTRACT_VERSION;
  /** Token used in session keys and config (`telegram`, `discord`, `feishu`, `test`…). */
  readonly platform: string;
  readonly limits: PlatformLimits;
  /**
   * HTTP routes the platform receives events on (Telegram's and Feishu's webhooks), mounted by
   * the gateway under the routes' own prefix before it listens; undefined when it needs none.
   */
  readonly routes?: PlatformRoutes;
  /**
   * The chat messages addressed to `home` go to until someone sends /sethome (a configured
   * `<PLATFORM>_HOME_CHANNEL`); undefined when none is configured.
   */
  readonly homeChannel?: ChatAddress;
  /** Connects and starts handing inbound events to `sink`. Resolves once receiving. */
  start(sink: InboundSink): Promise<void>;
  /** Stops receiving and disconnects; idempotent. */
  stop(): Promise<void>;
  health(): Promise<AdapterHealth>;
  /** Sends one message (already within `limits`); throws `PlatformError` on failure. */
  sendText(to: ChatAddress, message: OutboundText): Promise<SentMessage>;
  /** Replaces the text of a message the bot sent (and removes its buttons). */
  editText(to: ChatAddress, messageId: string, message: OutboundText): Promise<void>;
  /** Shows "typing…" for a few seconds; callers refresh it. */
  sendTyping(to: ChatAddress): Promise<void>;
  sendPrompt(to: ChatAddress, prompt: ActionPrompt): Promise<SentMessage>;
  /** Shows a short notice to the user who pressed a button (toast); optional on the platform side. */
  answerAction(action: InboundAction, notice: string): Promise<void>;
  /** Publishes the command list as the platform's native menu, where there is one. */
  setCommands(commands: readonly CommandInfo[]): Promise<void>;
  /**
   * Optional: shows on the user's message how its turn ended (Discord reacts ✅ or ❌). Called
   * after the answer or failure notice went out; never throws.
   */
  markOutcome?(to: ChatAddress, messageId: string, outcome: 'done' | 'failed'): Promise<void>;
}

export type PlatformErrorCode =
  | 'rate_limited'
  | 'too_long'
  | 'not_found'
  | 'forbidden'
  | 'bad_request'
  | 'unavailable';

/**
 * A failed platform call. `retryAfterMs` is the platform's own wait (Telegram `retry_after`);
 * `maybeDelivered` is true when the platform may have accepted the message before failing (a
 * timeout after sending), so a retry could duplicate it unless a receipt says otherwise.
 */
export class PlatformError extends Error {
  readonly code: PlatformErrorCode;
  readonly retryAfterMs: number | undefined;
  readonly maybeDelivered: boolean;

  constructor(
    code: PlatformErrorCode,
    message: string,
    options: { retryAfterMs?: number; maybeDelivered?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'PlatformError';
    this.code = code;
    this.retryAfterMs = options.retryAfterMs;
    this.maybeDelivered = options.maybeDelivered ?? false;
  }

  /** Worth retrying (rate limits and outages); the others will fail the same way again. */
  get retryable(): boolean {
    return this.code === 'rate_limited' || this.code === 'unavailable';
  }
}

/** Length of `text` as the platform counts it. */
export function measureLength(text: string, unit: LengthUnit): number {
  if (unit === 'utf16') return text.length;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
