import { COMMANDS, type CommandName, isCommandName } from './command-table.js';

/**
 * What a command word stands for: a known command (by name, alias or unambiguous prefix), or
 * something the user should get a short hint about instead of an answer from the model.
 */
export type CommandResolution =
  | { readonly kind: 'command'; readonly name: CommandName; readonly args: string }
  | { readonly kind: 'unknown'; readonly name: string; readonly args: string; readonly hint: string }
  | {
      readonly kind: 'ambiguous';
      readonly name: string;
      readonly args: string;
      readonly hint: string;
      /** The commands the prefix could mean, sorted. */
      readonly candidates: readonly CommandName[];
    };

export interface ParseCommandOptions {
  /** The bot's own username; `/cmd@other_bot` is then left alone (it is for another bot). */
  readonly botName?: string;
}

/** `name` or `name@bot`; anything else after the prefix (a path like `/etc/hosts`) is not a command. */
const COMMAND_WORD = /^([A-Za-z][A-Za-z0-9_-]{0,63})(?:@([A-Za-z0-9_]{1,64}))?$/;
const SHOWN_NAME_CHARS = 32;

/**
 * Reads a chat message as a command: `/name args`, `/name@botname args`, case-insensitive, with
 * aliases (`/reset` → new) and unambiguous prefixes (`/appr` → approve). Undefined when the text
 * is not a command at all (no prefix, a bare prefix, a path) — then it is an ordinary message.
 * Bare words such as "yes" or "ok" are never commands.
 */
export function parseCommand(
  text: string,
  prefix = '/',
  options: ParseCommandOptions = {},
): CommandResolution | undefined {
  if (prefix === '') return undefined;
  const trimmed = text.trimStart();
  if (!trimmed.startsWith(prefix)) return undefined;
  const rest = trimmed.slice(prefix.length);
  const space = rest.search(/\s/);
  const word = space === -1 ? rest : rest.slice(0, space);
  const args = space === -1 ? '' : rest.slice(space).trim();
  const match = COMMAND_WORD.exec(word);
  if (match === null) return undefined;
  const bot = match[2];
  if (bot !== undefined && options.botName !== undefined) {
    if (bot.toLowerCase() !== options.botName.replace(/^@/, '').toLowerCase()) return undefined;
  }
  return resolveCommand(match[1]!, args, prefix);
}

/**
 * Resolves a command word (already without prefix and `@bot`, as adapters deliver it in
 * `InboundCommand.name`): exact name, then exact alias, then a prefix of exactly one name.
 */
export function resolveCommand(typed: string, args = '', prefix = '/'): CommandResolution {
  const name = typed.trim().toLowerCase().replace(/@.*$/, '');
  if (isCommandName(name)) return { kind: 'command', name, args };
  const aliased = COMMANDS.find((command) => command.aliases.includes(name));
  if (aliased !== undefined) return { kind: 'command', name: aliased.name, args };
  const candidates =
    name === '' ? [] : COMMANDS.filter((command) => command.name.startsWith(name)).map((c) => c.name);
  if (candidates.length === 1) return { kind: 'command', name: candidates[0]!, args };
  const shown = `${prefix}${name.slice(0, SHOWN_NAME_CHARS)}`;
  if (candidates.length === 0) {
    return { kind: 'unknown', name, args, hint: `Unknown command ${shown} — try ${prefix}help` };
  }
  const sorted = [...candidates].sort();
  const listed = sorted.map((candidate) => `${prefix}${candidate}`);
  const choices = `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`;
  return {
    kind: 'ambiguous',
    name,
    args,
    candidates: sorted,
    hint: `${shown} could mean ${choices} — type a few more letters.`,
  };
}
