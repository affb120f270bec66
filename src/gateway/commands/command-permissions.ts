import { ALWAYS_ALLOWED, COMMANDS, type CommandName, commandSpec } from './command-table.js';
import { resolveCommand } from './parse-command.js';

/**
 * The commands a sender may run, in table order. Admins run everything; everyone else runs
 * /help, /whoami and the configured `user_commands` (names, aliases or with a leading `/`;
 * unknown entries are ignored), never an `adminOnly` command.
 */
export function allowedCommands(userCommands: readonly string[], isAdmin: boolean): CommandName[] {
  if (isAdmin) return COMMANDS.map((command) => command.name);
  const granted = new Set<CommandName>(ALWAYS_ALLOWED);
  for (const entry of userCommands) {
    const word = entry.trim().replace(/^\//, '').toLowerCase();
    if (word === '') continue;
    const resolved = resolveCommand(word);
    // Exact names and aliases only: a config entry "s" must not grant whatever it prefixes.
    if (resolved.kind === 'command' && exactName(word, resolved.name)) granted.add(resolved.name);
  }
  return COMMANDS.filter((command) => !command.adminOnly && granted.has(command.name)).map((c) => c.name);
}

function exactName(word: string, name: CommandName): boolean {
  return word === name || commandSpec(name).aliases.includes(word);
}
