import type {
  ActionChoice,
  ActionPrompt,
  ChatAddress,
  ChatType,
  CommandInfo,
  InboundAction,
  InboundCommand,
  InboundEvent,
  InboundImage,
  InboundMessage,
  InboundResult,
  PlatformAdapter,
  PlatformErrorCode,
  PlatformLimits,
} from '../adapter.js';

export interface TestAdapterOptions {
  /** Platform token (session keys, config); default `test`. */
  readonly platform?: string;
  /** Overrides of the default limits (4096 UTF-16 units, buttons, edits, typing, `/`). */
  readonly limits?: Partial<PlatformLimits>;
  /** Clock for `receivedAt` of built events (epoch ms); default Date.now. */
  readonly now?: () => number;
}

/** The outbound calls a programmed failure can hit. */
export type TestOperation = 'send' | 'edit' | 'prompt' | 'typing' | 'answer' | 'commands';

export interface TestFailure {
  readonly code: PlatformErrorCode;
  /** The platform's own wait (a 429's `retry_after`). */
  readonly retryAfterMs?: number;
  /**
   * The platform accepted the call and then the answer was lost: the message IS stored (and
   * visible in the records) before the error is thrown, as with a timeout after sending.
   */
  readonly maybeDelivered?: boolean;
  /** How many calls in a row fail; default 1. */
  readonly times?: number;
  /** Let this many matching calls succeed first; default 0 (fail the very next one). */
  readonly after?: number;
  /** Which calls fail; default `send`. */
  readonly on?: TestOperation | readonly TestOperation[];
}

/** A message the bot sent, as the platform shows it now (edits applied). */
export interface TestMessage {
  readonly messageId: string;
  readonly to: ChatAddress;
  readonly kind: 'text' | 'prompt';
  readonly text: string;
  readonly format: 'plain' | 'markdown' | undefined;
  readonly replyToMessageId: string | undefined;
  /** Buttons currently attached (an edit removes them; text-fallback prompts have none). */
  readonly choices: readonly ActionChoice[];
  readonly edits: number;
}

export interface SentRecord {
  readonly messageId: string;
  readonly to: ChatAddress;
  readonly text: string;
  readonly format: 'plain' | 'markdown' | undefined;
  readonly replyToMessageId: string | undefined;
  /** What the delivery passed to make retries of this part idempotent. */
  readonly idempotencyKey: string | undefined;
}

export interface EditRecord {
  readonly messageId: string;
  readonly to: ChatAddress;
  readonly text: string;
  readonly format: 'plain' | 'markdown' | undefined;
}

export interface PromptRecord {
  readonly messageId: string;
  readonly to: ChatAddress;
  readonly prompt: ActionPrompt;
  /** `buttons` where the platform has them, else `text` (the fallback text was sent). */
  readonly rendered: 'buttons' | 'text';
  /** What the chat shows. */
  readonly text: string;
}

export interface ActionAnswerRecord {
  readonly action: InboundAction;
  readonly notice: string;
}

/** What `inject` reports: the sink's answer, or `not_accepted` when the sink threw. */
export type InjectResult = InboundResult | { readonly status: 'not_accepted'; readonly error: unknown };

export interface InboundRecord {
  readonly event: InboundEvent;
  readonly result: InjectResult;
}

interface EventInputBase {
  readonly chatId: string;
  readonly userId: string;
  readonly userName?: string;
  /** Default `dm`. */
  readonly chatType?: ChatType;
  readonly threadId?: string;
  /** Default: a fresh unique id. Pass an earlier one to simulate a platform redelivery. */
  readonly eventId?: string;
  readonly platformOptions?: Readonly<Record<string, unknown>>;
}

export interface MessageInput extends EventInputBase {
  readonly text: string;
  /** Default true (a DM, or a mention / reply in a group). */
  readonly addressed?: boolean;
  readonly replyToMessageId?: string;
  readonly images?: readonly InboundImage[];
}

export interface CommandInput extends EventInputBase {
  /** Without the prefix. */
  readonly name: string;
  readonly args?: string;
  readonly addressed?: boolean;
}

export interface ActionInput extends EventInputBase {
  /** The prompt message the button belongs to. */
  readonly messageId: string;
  readonly data: string;
}

/** Presses a button of a prompt the adapter sent, found by its label (or data). */
export interface ClickInput {
  readonly messageId: string;
  readonly userId: string;
  readonly userName?: string;
  readonly label?: string;
  readonly data?: string;
  readonly eventId?: string;
}

/** Builds inbound events with unique ids for this adapter. */
export interface TestEventFactory {
  message(input: MessageInput): InboundMessage;
  command(input: CommandInput): InboundCommand;
  action(input: ActionInput): InboundAction;
  /** A command when `text` starts with the command prefix, else a message. */
  text(input: MessageInput): InboundMessage | InboundCommand;
}

/**
 * The in-memory adapter for tests of the whole control plane: every outbound call is recorded
 * in the arrays below (oldest first), inbound events are handed to the sink with `inject`.
 */
export interface TestAdapter extends PlatformAdapter, TestEventFactory {
  readonly sent: readonly SentRecord[];
  readonly edits: readonly EditRecord[];
  readonly typing: readonly ChatAddress[];
  readonly prompts: readonly PromptRecord[];
  readonly actionAnswers: readonly ActionAnswerRecord[];
  readonly commandMenus: readonly (readonly CommandInfo[])[];
  readonly inbound: readonly InboundRecord[];
  /** Every message sent (texts and prompts) in order, as shown now. */
  messages(chatId?: string): TestMessage[];
  /** Texts of `messages(chatId)`. */
  texts(chatId?: string): string[];
  /** One sent message as shown now; undefined when the adapter never sent it. */
  shown(messageId: string): TestMessage | undefined;
  /** The next matching calls fail with a PlatformError. Failures queue up in order. */
  failNext(failure: TestFailure): void;
  /** Drops failures not yet used. */
  clearFailures(): void;
  readonly started: boolean;
  /** Hands an event to the sink; throws when the adapter is not started. */
  inject(event: InboundEvent): Promise<InjectResult>;
  /** `inject(text(input))`. */
  say(input: MessageInput): Promise<InjectResult>;
  /** Builds the action of a button of a sent prompt. */
  click(input: ClickInput): InboundAction;
  /** `inject(click(input))`. */
  press(input: ClickInput): Promise<InjectResult>;
}
