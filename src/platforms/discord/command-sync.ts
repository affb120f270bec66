import { type APIApplicationCommand, type Client, type REST, Routes } from 'discord.js';
import type { Logger } from 'pino';
import type { CommandInfo } from '../adapter.js';
import { errorMessage, isTokenRejected, toPlatformError } from './discord-errors.js';
import { type CommandBody, slashCommandsOf, syncCommandList } from './slash-commands.js';

export interface CommandSync {
  /** The list to publish; published now when `client` is ready (failures thrown), else on READY. */
  publish(commands: readonly CommandInfo[], client: Client | undefined): Promise<void>;
  /** On every READY: publish what is wanted (failures logged). */
  onReady(client: Client): Promise<void>;
  /** A server the bot joined while running (guild mode): publish there too. */
  onGuild(client: Client, guildId: string): void;
}

/**
 * The chat commands as Discord slash commands, by `command_sync`: `off` touches nothing, `global`
 * writes the application's list, `guild` writes each server's list and clears the global one (the
 * same commands would show twice). Lists are compared before writing.
 */
export function createCommandSync(options: {
  readonly rest: REST;
  readonly token: string;
  readonly logger: Logger;
  readonly policy: 'off' | 'guild' | 'global';
  /** Discord refused the token while publishing. */
  readonly onTokenRejected: (detail: string) => void;
}): CommandSync {
  const { rest, token, logger, policy } = options;
  let wanted: CommandBody[] | undefined;
  const applicationOf = (client: Client) => client.application?.id ?? client.user?.id;

  async function sync(client: Client, list: readonly CommandBody[]): Promise<void> {
    const applicationId = applicationOf(client);
    if (applicationId === undefined) return;
    if (policy === 'global') {
      await syncCommandList(rest, { applicationId }, list);
      return;
    }
    for (const guildId of client.guilds.cache.keys())
      await syncCommandList(rest, { applicationId, guildId }, list);
    const global = (await rest.get(Routes.applicationCommands(applicationId))) as APIApplicationCommand[];
    if (global.length > 0) await rest.put(Routes.applicationCommands(applicationId), { body: [] });
  }

  async function run(client: Client, strict: boolean): Promise<void> {
    if (wanted === undefined || policy === 'off') return;
    try {
      await sync(client, wanted);
    } catch (error) {
      const mapped = toPlatformError(error, token);
      if (isTokenRejected(error)) options.onTokenRejected(mapped.message);
      if (strict) throw mapped;
      logger.warn({ err: mapped.message }, 'discord slash commands not registered');
    }
  }

  return {
    async publish(commands, client) {
      wanted = slashCommandsOf(commands);
      if (client !== undefined) await run(client, true);
    },
    onReady: (client) => run(client, false),
    onGuild(client, guildId) {
      const applicationId = applicationOf(client);
      if (policy !== 'guild' || wanted === undefined || applicationId === undefined) return;
      syncCommandList(rest, { applicationId, guildId }, wanted).catch((error: unknown) =>
        logger.warn({ guildId, err: errorMessage(error, token) }, 'discord slash commands not registered'),
      );
    },
  };
}
