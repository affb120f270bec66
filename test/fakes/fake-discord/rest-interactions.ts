/**
 * Interaction callbacks and the interaction webhook (follow-ups, `@original`), with Discord's rules:
 * the first callback within the window (3 s) or 10062 Unknown interaction, one callback only (40060),
 * follow-ups only after the acknowledgement (10015), and the token valid for 15 minutes.
 */
import { InteractionResponseType, MessageType } from 'discord.js';
import type { FakeMessage } from './discord-world.js';
import { emitMessage, emitMessageDelete, type FakeCore, restMessage } from './fake-core.js';
import type { FakeInteraction, InteractionCallbackRecord } from './interactions.js';
import { fieldOf } from './is-record.js';
import { createBotMessage, editMessage } from './message-ops.js';
import { EPHEMERAL, interactionCallbackBody, modalData } from './request-schemas.js';
import { apiErrors, DiscordApiError, formError } from './rest-errors.js';
import { ok, parseBody, type Route, type RouteContext, type RouteResult } from './rest-router.js';

export function interactionRoutes(core: FakeCore): Route[] {
  const { world } = core;

  const callback = ({ params, body, files, query }: RouteContext): RouteResult => {
    const interaction = core.interactions.get(params['interaction_id'] ?? '');
    const attempt = (status: number, errorCode: number | undefined, type: number, data: unknown) => {
      const stamp = core.clock.stamp();
      const entry: InteractionCallbackRecord = {
        ...stamp,
        type,
        data,
        elapsedMs: stamp.at - (interaction?.at ?? stamp.at),
        status,
        errorCode,
      };
      interaction?.callbacks.push(entry);
      return entry;
    };
    const rawType = fieldOf(body, 'type');
    const rawData = fieldOf(body, 'data');
    const refuse = (error: DiscordApiError): never => {
      attempt(error.status, error.code, typeof rawType === 'number' ? rawType : -1, rawData);
      throw error;
    };
    if (interaction === undefined || interaction.token !== params['interaction_token'])
      return refuse(apiErrors.unknownInteraction());
    if (interaction.acknowledged !== undefined) return refuse(apiErrors.alreadyAcknowledged());
    if (Date.now() - interaction.at > core.config.interactionWindowMs)
      return refuse(apiErrors.unknownInteraction());
    let type: number;
    try {
      type = parseBody(interactionCallbackBody, body).type;
      respond(interaction, type, rawData, files);
    } catch (error) {
      if (error instanceof DiscordApiError) return refuse(error);
      throw error;
    }
    interaction.acknowledged = attempt(
      query.get('with_response') === 'true' ? 200 : 204,
      undefined,
      type,
      rawData,
    );
    if (query.get('with_response') !== 'true') return ok();
    const original =
      interaction.originalMessageId === undefined
        ? undefined
        : world.messages.get(interaction.originalMessageId);
    return ok({
      interaction: {
        id: interaction.id,
        type: interaction.kind === 'command' ? 2 : 3,
        response_message_id: original?.id,
        response_message_loading: original?.loading ?? false,
        response_message_ephemeral: original?.ephemeralTo !== undefined,
      },
      resource: {
        type,
        ...(original !== undefined && (type === 4 || type === 7 || type === 5)
          ? { message: restMessage(core, original) }
          : {}),
      },
    });
  };

  /** What each callback type does to the channel; throws (nothing changed) when Discord would refuse. */
  const respond = (
    interaction: FakeInteraction,
    type: number,
    data: unknown,
    files: RouteContext['files'],
  ) => {
    const component = interaction.kind !== 'command';
    const flags = fieldOf(data, 'flags');
    const ephemeral = typeof flags === 'number' && (flags & EPHEMERAL) !== 0;
    const channel = world.channel(interaction.channelId);
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource:
      case InteractionResponseType.DeferredChannelMessageWithSource: {
        // An interaction response is a webhook message: the bot's channel permissions do not apply.
        const deferred = type === InteractionResponseType.DeferredChannelMessageWithSource;
        const message = createBotMessage(core, channel, data ?? {}, files, {
          interactionId: interaction.id,
          ephemeralTo: ephemeral ? interaction.userId : undefined,
          loading: deferred,
          type: interaction.kind === 'command' ? MessageType.ChatInputCommand : MessageType.Default,
        });
        interaction.originalMessageId = message.id;
        emitMessage(core, 'MESSAGE_CREATE', message);
        return;
      }
      case InteractionResponseType.DeferredMessageUpdate:
      case InteractionResponseType.UpdateMessage: {
        if (!component || interaction.messageId === undefined) throw invalidType();
        const message = world.messages.get(interaction.messageId);
        if (message === undefined || message.deleted) throw apiErrors.unknownMessage();
        if (type === InteractionResponseType.UpdateMessage) {
          editMessage(core, message, data ?? {}, files);
          emitMessage(core, 'MESSAGE_UPDATE', message);
        }
        interaction.originalMessageId = message.id;
        return;
      }
      case InteractionResponseType.Modal:
        interaction.modal = parseBody(modalData, data);
        return;
      default:
        // Pong and autocomplete results are for other interaction types.
        throw invalidType();
    }
  };

  /** The interaction behind a webhook URL, if its token is still valid and it was acknowledged. */
  const byToken = (params: Readonly<Record<string, string>>): FakeInteraction => {
    const token = params['interaction_token'] ?? '';
    const interaction = [...core.interactions.values()].find((i) => i.token === token);
    if (params['application_id'] !== world.bot.id || interaction === undefined)
      throw apiErrors.unknownWebhook();
    if (Date.now() - interaction.at > core.config.interactionTokenLifetimeMs) {
      throw new DiscordApiError(401, 50027, 'Invalid Webhook Token');
    }
    if (interaction.acknowledged === undefined) throw apiErrors.unknownWebhook();
    return interaction;
  };
  const target = (interaction: FakeInteraction, messageId: string): FakeMessage => {
    const id = messageId === '@original' ? interaction.originalMessageId : messageId;
    const message = id === undefined ? undefined : world.messages.get(id);
    const ours =
      id === interaction.originalMessageId || (id !== undefined && interaction.followUpIds.includes(id));
    if (message === undefined || message.deleted || !ours) throw apiErrors.unknownMessage();
    return message;
  };

  return [
    {
      method: 'POST',
      path: '/interactions/:interaction_id/:interaction_token/callback',
      auth: false,
      handle: callback,
    },
    {
      method: 'POST',
      path: '/webhooks/:application_id/:interaction_token',
      auth: false,
      handle: ({ params, body, files, query }) => {
        const interaction = byToken(params);
        const original =
          interaction.originalMessageId === undefined
            ? undefined
            : world.messages.get(interaction.originalMessageId);
        let message: FakeMessage;
        if (original?.loading && original.interactionId === interaction.id) {
          // The first follow-up after a deferred reply fills the "thinking" message (keeping its ephemerality).
          editMessage(core, original, body, files);
          emitMessage(core, 'MESSAGE_UPDATE', original);
          message = original;
        } else {
          const flags = fieldOf(body, 'flags');
          const ephemeral = typeof flags === 'number' && (flags & EPHEMERAL) !== 0;
          const channel = world.channel(interaction.channelId);
          message = createBotMessage(core, channel, body, files, {
            interactionId: interaction.id,
            ephemeralTo: ephemeral ? interaction.userId : undefined,
          });
          interaction.followUpIds.push(message.id);
          emitMessage(core, 'MESSAGE_CREATE', message);
        }
        return query.get('wait') === 'true' ? ok(restMessage(core, message)) : ok();
      },
    },
    {
      method: 'GET',
      path: '/webhooks/:application_id/:interaction_token/messages/:message_id',
      auth: false,
      handle: ({ params }) => ok(restMessage(core, target(byToken(params), params['message_id'] ?? ''))),
    },
    {
      method: 'PATCH',
      path: '/webhooks/:application_id/:interaction_token/messages/:message_id',
      auth: false,
      handle: ({ params, body, files }) => {
        const message = target(byToken(params), params['message_id'] ?? '');
        editMessage(core, message, body, files);
        emitMessage(core, 'MESSAGE_UPDATE', message);
        return ok(restMessage(core, message));
      },
    },
    {
      method: 'DELETE',
      path: '/webhooks/:application_id/:interaction_token/messages/:message_id',
      auth: false,
      handle: ({ params }) => {
        const message = target(byToken(params), params['message_id'] ?? '');
        message.deleted = true;
        emitMessageDelete(core, message);
        return ok();
      },
    },
  ];
}

function invalidType(): DiscordApiError {
  return formError(
    ['type'],
    'INTERACTION_RESPONSE_TYPE_INVALID',
    'Interaction response type is invalid for this interaction.',
  );
}
