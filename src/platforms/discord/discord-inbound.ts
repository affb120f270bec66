import { type APIChannel, type Message, type REST, Routes, ThreadAutoArchiveDuration } from 'discord.js';
import type { Logger } from 'pino';
import type { InboundEvent, InboundResult, InboundSink } from '../adapter.js';
import { errorMessage } from './discord-errors.js';
import { channelOf, type DiscordOutbound } from './discord-outbound.js';
import type { DiscordSettings } from './discord-settings.js';
import type { EventDispatcher } from './event-dispatcher.js';
import type { InteractionReplies } from './interaction-replies.js';
import { type InteractionSource, translateInteraction } from './translate-interaction.js';
import { type MessageTranslation, translateMessage } from './translate-message.js';
import { viewOfMessage } from './view-of-message.js';

export const GIVEN_UP_MESSAGE =
  'Sorry — I could not take this message just now (the gateway is having trouble). Please send it again in a moment.';
export const GIVEN_UP_CLICK = 'Sorry — this could not be handled just now. Please try again in a moment.';
export const NOT_ALLOWED_NOTICE = 'You are not allowed to use this bot here.';
export const CHANNEL_REFUSED_NOTICE = 'I do not answer in this channel.';

export interface DiscordInboundDeps {
  readonly logger: Logger;
  readonly token: string;
  readonly rest: REST;
  readonly settings: DiscordSettings;
  readonly dispatcher: EventDispatcher;
  readonly interactions: InteractionReplies;
  readonly outbound: DiscordOutbound;
  readonly sink: () => InboundSink | undefined;
  readonly now: () => number;
  /** A message was taken by the gateway (reactions start here). */
  readonly accepted: (event: InboundEvent) => void;
  /**
   * The allowed roles a user holds in the servers that define them (a DM carries no roles);
   * empty when no role allowlist is set.
   */
  readonly rolesInDm: (userId: string) => Promise<readonly string[]>;
  /** Adds attachments to a message event (downloads them within the cap). */
  readonly withAttachments: (
    event: InboundEvent,
    attachments: Extract<MessageTranslation, { kind: 'event' }>['attachments'],
  ) => Promise<InboundEvent>;
}

export interface DiscordInbound {
  onMessage(message: Message, botId: string): void;
  onInteraction(raw: unknown): void;
}

/**
 * Discord events to the gateway. Messages go through the per-channel lanes (an auto-thread is
 * opened first, attachments fetched); button presses and slash commands are acknowledged at once
 * — before any work, inside Discord's 3 seconds — and then handed over; what the gateway answers
 * a click is shown to the clicker only.
 */
export function createDiscordInbound(deps: DiscordInboundDeps): DiscordInbound {
  const { logger, token, settings, dispatcher, interactions, outbound } = deps;
  const describe = (error: unknown) => errorMessage(error, token);

  async function handOver(event: InboundEvent): Promise<InboundResult> {
    const sink = deps.sink();
    if (sink === undefined) throw new Error('the discord adapter is not started');
    if (event.chat.chatType !== 'dm' || event.sender.roles !== undefined) return sink(event);
    const roles = await deps.rolesInDm(event.sender.userId);
    return sink(roles.length === 0 ? event : { ...event, sender: { ...event.sender, roles: [...roles] } });
  }

  /** Opens the thread of an auto-threaded mention (once per message); undefined when it cannot. */
  async function openThread(channelId: string, messageId: string, name: string): Promise<string | undefined> {
    try {
      const thread = (await deps.rest.post(Routes.threads(channelId, messageId), {
        body: { name, auto_archive_duration: ThreadAutoArchiveDuration.OneDay },
      })) as APIChannel;
      return thread.id;
    } catch (error) {
      logger.warn(
        { channelId, err: describe(error) },
        'discord: thread not opened; answering in the channel',
      );
      return undefined;
    }
  }

  function onMessage(message: Message, botId: string): void {
    let view: ReturnType<typeof viewOfMessage>;
    try {
      view = viewOfMessage(message, botId);
    } catch (error) {
      // A message discord.js could not fully build (a channel it has not cached, say): a throw
      // here would surface as an unhandled rejection inside discord.js and stop the process.
      logger.warn({ messageId: message.id, err: describe(error) }, 'discord message not readable; skipped');
      return;
    }
    const translation = translateMessage(view, { id: botId }, settings, deps.now());
    if (translation.kind === 'skip') {
      logger.debug({ messageId: message.id, reason: translation.reason }, 'discord message skipped');
      return;
    }
    let event = translation.event;
    let prepared = false;
    void dispatcher.dispatch({
      eventId: event.eventId,
      lane: translation.lane,
      run: async () => {
        if (!prepared) {
          // Once per message, whatever the retries: the thread it moves to, then its files.
          if (translation.openThread !== undefined) {
            const threadId = await openThread(event.chat.chatId, message.id, translation.openThread.name);
            if (threadId !== undefined) {
              event = { ...event, chat: { chatId: event.chat.chatId, threadId, chatType: 'thread' } };
            }
          }
          if (translation.attachments.length > 0)
            event = await deps.withAttachments(event, translation.attachments);
          prepared = true;
        }
        const result = await handOver(event);
        if (result.status === 'accepted' && event.kind === 'message') deps.accepted(event);
      },
      giveUp: async () => {
        await outbound.sendText(event.chat, { text: GIVEN_UP_MESSAGE, replyToMessageId: message.id });
      },
    });
  }

  async function acknowledge(source: InteractionSource, kind: 'update' | 'reply', ephemeral = false) {
    try {
      await interactions.acknowledge(source, kind, ephemeral);
      return true;
    } catch (error) {
      logger.warn({ interactionId: source.id, err: describe(error) }, 'discord interaction not acknowledged');
      return false;
    }
  }

  async function quietly(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      logger.warn({ err: describe(error) }, 'discord interaction answer not shown');
    }
  }

  function outsideAllowedChannels(channelId: string, parentId: string | undefined): boolean {
    const listed = (set: ReadonlySet<string>) =>
      set.has(channelId) || (parentId !== undefined && set.has(parentId));
    return (
      listed(settings.ignored) || (settings.allowedChannels.size > 0 && !listed(settings.allowedChannels))
    );
  }

  async function onInteractionAsync(raw: unknown): Promise<void> {
    const translation = translateInteraction(raw, deps.now());
    if (translation.kind === 'skip') {
      logger.debug({ reason: translation.reason }, 'discord interaction skipped');
      // Still answered in time, so the user does not see "This interaction failed".
      if (translation.source !== undefined && (await acknowledge(translation.source, 'reply', true))) {
        await quietly(() =>
          interactions.answer(translation.source?.id ?? '', {
            content: 'This is not something I can handle.',
          }),
        );
      }
      return;
    }
    const { source } = translation;
    if (translation.kind === 'action') {
      const event = translation.event;
      await acknowledge(source, 'update');
      await dispatcher.dispatch({
        eventId: event.eventId,
        run: async () => {
          const result = await handOver(event);
          const notice =
            result.status === 'answered'
              ? result.notice
              : result.status === 'rejected'
                ? NOT_ALLOWED_NOTICE
                : '';
          if (notice !== '') await outbound.answerAction(event, notice);
        },
        giveUp: () => outbound.answerAction(event, GIVEN_UP_CLICK),
      });
      return;
    }
    const event = translation.event;
    const chat = event.chat;
    if (
      chat.chatType !== 'dm' &&
      outsideAllowedChannels(channelOf(chat), chat.threadId !== undefined ? chat.chatId : undefined)
    ) {
      if (await acknowledge(source, 'reply', true)) {
        await quietly(() => interactions.answer(source.id, { content: CHANNEL_REFUSED_NOTICE }));
      }
      return;
    }
    await acknowledge(source, 'reply');
    await dispatcher.dispatch({
      eventId: event.eventId,
      lane: translation.lane,
      run: async () => {
        const result = await handOver(event);
        if (!interactions.awaitingAnswer(source.id)) return;
        // Nothing was said through the interaction: take "thinking…" away (and say why, privately).
        await quietly(() => interactions.discard(source.id));
        if (result.status === 'rejected')
          await quietly(() => interactions.notice(source.id, NOT_ALLOWED_NOTICE));
      },
      giveUp: async () => {
        await interactions.answer(source.id, { content: GIVEN_UP_CLICK });
      },
    });
  }

  return {
    onMessage,
    onInteraction(raw) {
      void onInteractionAsync(raw).catch((error: unknown) =>
        logger.error({ err: describe(error) }, 'discord interaction not handled'),
      );
    },
  };
}
