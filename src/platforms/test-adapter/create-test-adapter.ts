import {
  type ActionChoice,
  ADAPTER_CONTRACT_VERSION,
  type ChatAddress,
  type CommandInfo,
  type InboundAction,
  type InboundEvent,
  type InboundSink,
  measureLength,
  type OutboundText,
  PlatformError,
  type PlatformLimits,
} from '../adapter.js';
import { createFailurePlan } from './failure-plan.js';
import type {
  ActionAnswerRecord,
  EditRecord,
  InboundRecord,
  InjectResult,
  PromptRecord,
  SentRecord,
  TestAdapter,
  TestAdapterOptions,
  TestMessage,
  TestOperation,
} from './test-adapter-types.js';
import { createTestEventFactory } from './test-event-factory.js';

export const TEST_ADAPTER_LIMITS: PlatformLimits = {
  maxMessageLength: 4096,
  lengthUnit: 'utf16',
  maxActionDataBytes: 64,
  supportsButtons: true,
  supportsEdit: true,
  supportsTyping: true,
  commandPrefix: '/',
};

interface StoredMessage {
  messageId: string;
  to: ChatAddress;
  kind: 'text' | 'prompt';
  text: string;
  format: 'plain' | 'markdown' | undefined;
  replyToMessageId: string | undefined;
  choices: readonly ActionChoice[];
  edits: number;
}

/**
 * An in-memory platform for tests: it behaves like a strict real one (length and button-data
 * limits, unknown message ids, edits only where supported) and records everything.
 */
export function createTestAdapter(options: TestAdapterOptions = {}): TestAdapter {
  const platform = options.platform ?? 'test';
  const limits: PlatformLimits = { ...TEST_ADAPTER_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const events = createTestEventFactory(platform, limits.commandPrefix, now);
  const failures = createFailurePlan();

  const sent: SentRecord[] = [];
  const edits: EditRecord[] = [];
  const typing: ChatAddress[] = [];
  const prompts: PromptRecord[] = [];
  const actionAnswers: ActionAnswerRecord[] = [];
  const commandMenus: (readonly CommandInfo[])[] = [];
  const inbound: InboundRecord[] = [];
  const stored = new Map<string, StoredMessage>();
  let outboundCount = 0;
  let sink: InboundSink | undefined;

  /** Runs a platform call, applying a programmed failure before or (maybeDelivered) after it. */
  function call<T>(op: TestOperation, effect: () => T): T {
    const planned = failures.take(op);
    if (planned === undefined) return effect();
    if (planned.afterEffect) effect();
    throw planned.error;
  }

  function checkAddress(to: ChatAddress): void {
    if (typeof to.chatId !== 'string' || to.chatId === '') {
      throw new PlatformError('bad_request', 'chat id is empty');
    }
  }

  function checkText(text: string): void {
    if (typeof text !== 'string' || text.trim() === '')
      throw new PlatformError('bad_request', 'text is empty');
    const length = measureLength(text, limits.lengthUnit);
    if (length > limits.maxMessageLength) {
      throw new PlatformError(
        'too_long',
        `text is ${length} ${limits.lengthUnit} units, the limit is ${limits.maxMessageLength}`,
      );
    }
  }

  function store(message: Omit<StoredMessage, 'messageId' | 'edits'>): string {
    outboundCount += 1;
    const messageId = `m${outboundCount}`;
    stored.set(messageId, { ...message, messageId, edits: 0 });
    return messageId;
  }

  function view(message: StoredMessage): TestMessage {
    return { ...message, choices: [...message.choices] };
  }

  function messages(chatId?: string): TestMessage[] {
    return [...stored.values()].filter((m) => chatId === undefined || m.to.chatId === chatId).map(view);
  }

  async function inject(event: InboundEvent): Promise<InjectResult> {
    if (sink === undefined) throw new Error('test adapter is not started: call start(sink) first');
    let result: InjectResult;
    try {
      result = await sink(event);
    } catch (error) {
      result = { status: 'not_accepted', error };
    }
    inbound.push({ event, result });
    if (event.kind === 'action' && result.status === 'answered') {
      actionAnswers.push({ action: event, notice: result.notice });
    }
    return result;
  }

  function click(input: Parameters<TestAdapter['click']>[0]): InboundAction {
    const message = stored.get(input.messageId);
    if (message === undefined) throw new Error(`test adapter never sent message ${input.messageId}`);
    const choice = message.choices.find(
      (c) =>
        (input.label !== undefined && c.label === input.label) ||
        (input.data !== undefined && c.data === input.data),
    );
    if (choice === undefined) {
      throw new Error(
        `message ${input.messageId} has no button ${input.label ?? input.data ?? '(none given)'}; it has: ${message.choices.map((c) => c.label).join(', ') || 'none'}`,
      );
    }
    return events.action({
      chatId: message.to.chatId,
      ...(message.to.threadId === undefined ? {} : { threadId: message.to.threadId }),
      userId: input.userId,
      ...(input.userName === undefined ? {} : { userName: input.userName }),
      ...(input.eventId === undefined ? {} : { eventId: input.eventId }),
      messageId: message.messageId,
      data: choice.data,
    });
  }

  return {
    contractVersion: ADAPTER_CONTRACT_VERSION,
    platform,
    limits,
    sent,
    edits,
    typing,
    prompts,
    actionAnswers,
    commandMenus,
    inbound,
    get started() {
      return sink !== undefined;
    },

    start: async (nextSink) => {
      // Idempotent: a second start keeps the first sink.
      sink ??= nextSink;
    },
    stop: async () => {
      sink = undefined;
    },
    health: async () => (sink === undefined ? { ok: false, reason: 'not started' } : { ok: true }),

    sendText: async (to, message: OutboundText) => {
      checkAddress(to);
      checkText(message.text);
      return call('send', () => {
        const messageId = store({
          to,
          kind: 'text',
          text: message.text,
          format: message.format,
          replyToMessageId: message.replyToMessageId,
          choices: [],
        });
        sent.push({
          messageId,
          to,
          text: message.text,
          format: message.format,
          replyToMessageId: message.replyToMessageId,
          idempotencyKey: message.idempotencyKey,
        });
        return { messageId };
      });
    },

    editText: async (to, messageId, message) => {
      checkAddress(to);
      if (!limits.supportsEdit) throw new PlatformError('bad_request', 'this platform cannot edit messages');
      const target = stored.get(messageId);
      if (target === undefined || target.to.chatId !== to.chatId) {
        throw new PlatformError('not_found', `message ${messageId} not found in chat ${to.chatId}`);
      }
      checkText(message.text);
      call('edit', () => {
        target.text = message.text;
        target.format = message.format;
        target.choices = [];
        target.edits += 1;
        edits.push({ messageId, to, text: message.text, format: message.format });
      });
    },

    sendTyping: async (to) => {
      checkAddress(to);
      if (!limits.supportsTyping) return;
      call('typing', () => {
        typing.push(to);
      });
    },

    sendPrompt: async (to, prompt) => {
      checkAddress(to);
      const buttons = limits.supportsButtons;
      const text = buttons ? prompt.text : prompt.fallbackText;
      checkText(text);
      if (buttons) {
        if (prompt.choices.length === 0) throw new PlatformError('bad_request', 'a prompt needs choices');
        for (const choice of prompt.choices) {
          const bytes = Buffer.byteLength(choice.data, 'utf8');
          if (choice.data === '' || bytes > limits.maxActionDataBytes) {
            throw new PlatformError(
              'bad_request',
              `button data must be 1-${limits.maxActionDataBytes} bytes (got ${bytes})`,
            );
          }
        }
      }
      return call('prompt', () => {
        const messageId = store({
          to,
          kind: 'prompt',
          text,
          format: prompt.format,
          replyToMessageId: undefined,
          choices: buttons ? [...prompt.choices] : [],
        });
        prompts.push({ messageId, to, prompt, rendered: buttons ? 'buttons' : 'text', text });
        return { messageId };
      });
    },

    answerAction: async (action, notice) => {
      call('answer', () => {
        actionAnswers.push({ action, notice });
      });
    },

    setCommands: async (commands) => {
      call('commands', () => {
        commandMenus.push(commands.map((c) => ({ name: c.name, description: c.description })));
      });
    },

    messages,
    texts: (chatId) => messages(chatId).map((m) => m.text),
    shown: (messageId) => {
      const message = stored.get(messageId);
      return message === undefined ? undefined : view(message);
    },
    failNext: (failure) => failures.add(failure),
    clearFailures: () => failures.clear(),

    message: events.message,
    command: events.command,
    action: events.action,
    text: events.text,
    inject,
    say: (input) => inject(events.text(input)),
    click,
    press: (input) => inject(click(input)),
  };
}
