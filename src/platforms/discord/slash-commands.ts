import {
  type APIApplicationCommand,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  type REST,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  Routes,
} from 'discord.js';
import type { CommandInfo } from '../adapter.js';

/** The one option every slash command has: the rest of the line, as after a typed `/command`. */
export const ARGS_OPTION = 'args';
const NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;
const DESCRIPTION_CHARS = 100;
const MAX_COMMANDS = 100;

export type CommandBody = RESTPostAPIChatInputApplicationCommandsJSONBody;

function clip(text: string, chars: number): string {
  const list = [...text];
  return list.length > chars ? `${list.slice(0, chars - 1).join('')}…` : text;
}

/**
 * The chat commands as Discord application commands: same names (those Discord accepts), the
 * description clipped to 100 characters, one optional text option `args`, usable in servers and
 * in DMs with the bot.
 */
export function slashCommandsOf(commands: readonly CommandInfo[]): CommandBody[] {
  const seen = new Set<string>();
  const out: CommandBody[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    if (!NAME.test(name) || seen.has(name) || out.length >= MAX_COMMANDS) continue;
    seen.add(name);
    out.push({
      type: ApplicationCommandType.ChatInput,
      name,
      description: clip(command.description.trim() || name, DESCRIPTION_CHARS),
      options: [
        {
          type: ApplicationCommandOptionType.String,
          name: ARGS_OPTION,
          description: 'What you would type after the command (optional)',
          required: false,
        },
      ],
      integration_types: [ApplicationIntegrationType.GuildInstall],
      contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    });
  }
  return out;
}

/** What decides whether Discord's list already matches ours (ids, versions and defaults ignored). */
function shapeOf(command: Pick<APIApplicationCommand, 'name' | 'description' | 'options'>): string {
  const options = (command.options ?? []).map((option) => ({
    type: option.type,
    name: option.name,
    description: option.description,
    required: 'required' in option ? option.required === true : false,
  }));
  return JSON.stringify({ name: command.name, description: command.description, options });
}

function sameList(existing: readonly APIApplicationCommand[], wanted: readonly CommandBody[]): boolean {
  const left = existing
    .filter((c) => c.type === ApplicationCommandType.ChatInput)
    .map(shapeOf)
    .sort();
  const right = wanted
    .map((c) => shapeOf({ name: c.name, description: c.description, options: c.options ?? [] }))
    .sort();
  return existing.length === wanted.length && JSON.stringify(left) === JSON.stringify(right);
}

export interface SyncTarget {
  readonly applicationId: string;
  /** Undefined: the global list. */
  readonly guildId?: string;
}

/**
 * Makes one command list on Discord equal `wanted`: reads it first and writes (one bulk
 * overwrite) only when it differs, so restarts do not churn command versions or rate limits.
 * Returns whether it wrote.
 */
export async function syncCommandList(
  rest: REST,
  target: SyncTarget,
  wanted: readonly CommandBody[],
): Promise<boolean> {
  const route =
    target.guildId === undefined
      ? Routes.applicationCommands(target.applicationId)
      : Routes.applicationGuildCommands(target.applicationId, target.guildId);
  const existing = (await rest.get(route)) as APIApplicationCommand[];
  if (sameList(existing, wanted)) return false;
  await rest.put(route, { body: wanted });
  return true;
}
