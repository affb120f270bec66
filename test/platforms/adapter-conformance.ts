import { afterEach, describe, expect, it } from 'vitest';
import {
  type ActionChoice,
  ADAPTER_CONTRACT_VERSION,
  type ChatRef,
  type CommandInfo,
  type InboundEvent,
  type InboundResult,
  type PlatformAdapter,
  PlatformError,
} from '../../src/platforms/adapter.js';

/** Whether the platform got its acknowledgement for a delivered event (offset moved, HTTP 200…). */
export type PlatformAck = 'acknowledged' | 'not_acknowledged';

/** What the platform shows for a message the bot sent. */
export interface ShownMessage {
  readonly text: string;
  /** Buttons attached now; empty when there are none (text fallback, or removed by an edit). */
  readonly choices: readonly Pick<ActionChoice, 'label' | 'data'>[];
}

/**
 * The platform side of one adapter under test: a fake server (Telegram Bot API, Discord REST and
 * gateway, Lark…) or, for the in-memory adapter, the adapter itself. The suite starts and stops
 * the adapter with its own sink; the harness drives and inspects the platform.
 */
export interface AdapterHarness {
  readonly adapter: PlatformAdapter;
  /** A chat the bot may write to and a user in it who may write to the bot. */
  readonly chat: ChatRef;
  readonly userId: string;
  /** A message id the bot never sent in `chat`. */
  readonly missingMessageId: string;
  /**
   * The platform delivers a user's text (a command when it starts with the command prefix) and
   * resolves once it saw the adapter acknowledge the event, or not, for this delivery attempt.
   */
  emitText(text: string): Promise<PlatformAck>;
  /** The platform delivers a press of the button carrying `data` on the bot's prompt message. */
  emitAction(promptMessageId: string, data: string): Promise<PlatformAck>;
  /** The platform delivers the last emitted event again (its retry after no acknowledgement). */
  redeliverLast(): Promise<PlatformAck>;
  shownMessage(messageId: string): Promise<ShownMessage | undefined>;
  /** How many typing indicators the chat has seen. */
  typingShown(): Promise<number>;
  /** Notices shown to users who pressed buttons (toasts), oldest first. */
  actionNotices(): Promise<readonly string[]>;
  /** The published native command menu, if any. */
  commandMenu(): Promise<readonly CommandInfo[] | undefined>;
  /** The platform's next call of this kind answers like a 429 asking to wait `retryAfterMs`. */
  rateLimitNext(op: 'send' | 'edit' | 'prompt', retryAfterMs: number): Promise<void>;
  close(): Promise<void>;
}

/** A sink that records events and answers as told (accept by default). */
function recordingSink() {
  const events: InboundEvent[] = [];
  let answer: (event: InboundEvent) => Promise<InboundResult> = async () => ({ status: 'accepted' });
  return {
    events,
    answerWith(next: (event: InboundEvent) => Promise<InboundResult>) {
      answer = next;
    },
    sink: async (event: InboundEvent): Promise<InboundResult> => {
      events.push(event);
      return answer(event);
    },
  };
}

async function expectPlatformError(call: Promise<unknown>): Promise<PlatformError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }
  throw new Error('expected the call to fail with a PlatformError');
}

/**
 * The contract every platform adapter keeps. Call at the top level of a test file:
 * `runAdapterConformance('telegram', async () => makeTelegramHarness())`.
 */
export function runAdapterConformance(name: string, makeHarness: () => Promise<AdapterHarness>): void {
  describe(`adapter conformance: ${name}`, () => {
    const open: AdapterHarness[] = [];
    afterEach(async () => {
      for (const harness of open.splice(0)) {
        await harness.adapter.stop();
        await harness.close();
      }
    });

    async function started() {
      const harness = await makeHarness();
      open.push(harness);
      const recorder = recordingSink();
      await harness.adapter.start(recorder.sink);
      return { harness, adapter: harness.adapter, recorder, chat: harness.chat };
    }

    it('states the contract version, a platform token and sane limits', async () => {
      const harness = await makeHarness();
      open.push(harness);
      const { adapter } = harness;
      expect(adapter.contractVersion).toBe(ADAPTER_CONTRACT_VERSION);
      expect(adapter.platform).toMatch(/^[a-z][a-z0-9_-]{0,31}$/);
      expect(Number.isInteger(adapter.limits.maxMessageLength)).toBe(true);
      expect(adapter.limits.maxMessageLength).toBeGreaterThanOrEqual(16);
      expect(['utf16', 'codepoints']).toContain(adapter.limits.lengthUnit);
      expect(adapter.limits.maxActionDataBytes).toBeGreaterThanOrEqual(16);
      expect(adapter.limits.commandPrefix.length).toBeGreaterThan(0);
    });

    it('starts and stops idempotently and reports health', async () => {
      const { adapter, recorder } = await started();
      await adapter.start(recorder.sink);
      expect((await adapter.health()).ok).toBe(true);
      await adapter.stop();
      await adapter.stop();
      expect((await adapter.health()).ok).toBe(false);
    });

    it('sends texts with distinct message ids, and a text exactly at the limit', async () => {
      const { harness, adapter, chat } = await started();
      const first = await adapter.sendText(chat, { text: 'first' });
      const second = await adapter.sendText(chat, { text: 'second', format: 'markdown' });
      expect(first.messageId).not.toBe('');
      expect(second.messageId).not.toBe(first.messageId);
      expect((await harness.shownMessage(first.messageId))?.text).toBe('first');
      // A full message with an astral character: it counts 2 in UTF-16, 1 in code points.
      const unit = adapter.limits.lengthUnit === 'utf16' ? 2 : 1;
      const full = `😀${'x'.repeat(adapter.limits.maxMessageLength - unit)}`;
      const sent = await adapter.sendText(chat, { text: full, format: 'plain' });
      expect((await harness.shownMessage(sent.messageId))?.text).toBe(full);
    });

    it('edits a sent message, and refuses to edit one it never sent', async () => {
      const { harness, adapter, chat } = await started();
      const { messageId } = await adapter.sendText(chat, { text: 'working…' });
      if (!adapter.limits.supportsEdit) {
        await expectPlatformError(adapter.editText(chat, messageId, { text: 'done' }));
        return;
      }
      await adapter.editText(chat, messageId, { text: 'done' });
      expect((await harness.shownMessage(messageId))?.text).toBe('done');
      const error = await expectPlatformError(
        adapter.editText(chat, harness.missingMessageId, { text: 'x' }),
      );
      expect(['not_found', 'bad_request']).toContain(error.code);
    });

    it('shows a typing indicator where the platform has one', async () => {
      const { harness, adapter, chat } = await started();
      await adapter.sendTyping(chat);
      expect(await harness.typingShown()).toBe(adapter.limits.supportsTyping ? 1 : 0);
    });

    it('sends a prompt with buttons, or its fallback text without them', async () => {
      const { harness, adapter, chat } = await started();
      const choices: ActionChoice[] = [
        { data: 'ea:once:1', label: 'Allow once', style: 'primary' },
        { data: 'ea:deny:1', label: 'Deny', style: 'danger' },
      ];
      const { messageId } = await adapter.sendPrompt(chat, {
        text: 'Run `rm -rf build`?',
        choices,
        fallbackText: 'Run `rm -rf build`? Reply /approve or /deny.',
      });
      const shown = await harness.shownMessage(messageId);
      if (adapter.limits.supportsButtons) {
        expect(shown?.text).toContain('rm -rf build');
        expect(shown?.choices.map((c) => [c.label, c.data])).toEqual([
          ['Allow once', 'ea:once:1'],
          ['Deny', 'ea:deny:1'],
        ]);
        if (adapter.limits.supportsEdit) {
          await adapter.editText(chat, messageId, { text: 'Allowed once by ann' });
          expect(await harness.shownMessage(messageId)).toEqual({ text: 'Allowed once by ann', choices: [] });
        }
      } else {
        expect(shown?.text).toContain('/approve');
        expect(shown?.choices).toEqual([]);
      }
    });

    it('respects the action data limit in bytes', async () => {
      const { harness, adapter, chat, recorder } = await started();
      if (!adapter.limits.supportsButtons) return;
      const max = adapter.limits.maxActionDataBytes;
      const atLimit = `é${'a'.repeat(max - 2)}`; // é is two bytes in UTF-8
      const tooLong = `é${'a'.repeat(max - 1)}`;
      const prompt = (data: string) => ({
        text: 'Pick one',
        choices: [{ data, label: 'Pick' }],
        fallbackText: 'Pick one with /pick',
      });
      await expectPlatformError(adapter.sendPrompt(chat, prompt(tooLong)));
      const { messageId } = await adapter.sendPrompt(chat, prompt(atLimit));
      expect(await harness.emitAction(messageId, atLimit)).toBe('acknowledged');
      const action = recorder.events.at(-1);
      expect(action).toMatchObject({ kind: 'action', messageId, data: atLimit, platform: adapter.platform });
    });

    it('hands inbound messages, commands and actions to the sink with event ids', async () => {
      const { harness, adapter, chat, recorder } = await started();
      expect(await harness.emitText('hello there')).toBe('acknowledged');
      expect(await harness.emitText(`${adapter.limits.commandPrefix}status now`)).toBe('acknowledged');
      const [message, command] = recorder.events;
      expect(message).toMatchObject({
        kind: 'message',
        platform: adapter.platform,
        text: 'hello there',
        chat: { chatId: chat.chatId, chatType: chat.chatType },
        sender: { userId: harness.userId },
      });
      expect(command).toMatchObject({
        kind: 'command',
        name: 'status',
        args: 'now',
        platform: adapter.platform,
      });
      const ids = recorder.events.map((event) => event.eventId);
      for (const id of ids) expect(id).toMatch(/\S/);
      expect(new Set(ids).size).toBe(ids.length);
      for (const event of recorder.events) expect(Number.isFinite(event.receivedAt)).toBe(true);

      if (!adapter.limits.supportsButtons) return;
      const { messageId } = await adapter.sendPrompt(chat, {
        text: 'Continue?',
        choices: [{ data: 'c:yes', label: 'Yes' }],
        fallbackText: 'Continue? /yes',
      });
      expect(await harness.emitAction(messageId, 'c:yes')).toBe('acknowledged');
      expect(recorder.events.at(-1)).toMatchObject({
        kind: 'action',
        messageId,
        data: 'c:yes',
        sender: { userId: harness.userId },
      });
    });

    it('shows the notice of an answered action to the clicker', async () => {
      const { harness, adapter, chat, recorder } = await started();
      if (!adapter.limits.supportsButtons) return;
      recorder.answerWith(async () => ({ status: 'answered', notice: 'This request has expired.' }));
      const { messageId } = await adapter.sendPrompt(chat, {
        text: 'Continue?',
        choices: [{ data: 'c:yes', label: 'Yes' }],
        fallbackText: 'Continue? /yes',
      });
      expect(await harness.emitAction(messageId, 'c:yes')).toBe('acknowledged');
      expect(await harness.actionNotices()).toContain('This request has expired.');
    });

    it('does not acknowledge an event the sink failed on, so the platform delivers it again', async () => {
      const { harness, recorder } = await started();
      let calls = 0;
      recorder.answerWith(async () => {
        calls += 1;
        if (calls === 1) throw new Error('store is down');
        return { status: 'accepted' };
      });
      expect(await harness.emitText('are you there?')).toBe('not_acknowledged');
      expect(await harness.redeliverLast()).toBe('acknowledged');
      const [first, second] = recorder.events;
      expect(second?.eventId).toBe(first?.eventId);
    });

    it('acknowledges an event the sink rejected on purpose (it must not come back)', async () => {
      const { harness, recorder } = await started();
      recorder.answerWith(async () => ({ status: 'rejected', reason: 'unknown user' }));
      expect(await harness.emitText('let me in')).toBe('acknowledged');
    });

    it('maps a 429 to a retryable rate_limited PlatformError with the wait in ms', async () => {
      const { harness, adapter, chat } = await started();
      await harness.rateLimitNext('send', 3000);
      const error = await expectPlatformError(adapter.sendText(chat, { text: 'hi' }));
      expect(error.code).toBe('rate_limited');
      expect(error.retryAfterMs).toBe(3000);
      expect(error.retryable).toBe(true);
      // The next call goes through.
      expect((await adapter.sendText(chat, { text: 'hi' })).messageId).not.toBe('');
    });

    it('publishes a native command menu, or accepts the call where there is none', async () => {
      const { harness, adapter } = await started();
      const menu = [
        { name: 'help', description: 'What I can do' },
        { name: 'status', description: 'What is running' },
      ];
      await adapter.setCommands(menu);
      const shown = await harness.commandMenu();
      if (shown !== undefined) expect(shown).toEqual(menu);
    });
  });
}
