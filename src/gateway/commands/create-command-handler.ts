import { pairCommand, sethomeCommand } from './admin-commands.js';
import { approveCommand, denyCommand, yoloCommand } from './approval-commands.js';
import type {
  CommandHandlerDeps,
  CommandImpl,
  CommandInput,
  CommandResult,
  CommandRun,
} from './command-context.js';
import { allowedCommands } from './command-permissions.js';
import { type CommandName, commandSpec } from './command-table.js';
import { newCommand, queueCommand, stopCommand } from './control-commands.js';
import { helpCommand, modelCommand, statusCommand, usageCommand, whoamiCommand } from './info-commands.js';
import { resolveCommand } from './parse-command.js';
import { reloadMcpCommand } from './reload-mcp-command.js';
import { toolsCommand } from './tools-command.js';

const IMPLEMENTATIONS: Readonly<Record<CommandName, CommandImpl>> = {
  help: helpCommand,
  new: newCommand,
  status: statusCommand,
  stop: stopCommand,
  model: modelCommand,
  approve: approveCommand,
  deny: denyCommand,
  yolo: yoloCommand,
  queue: queueCommand,
  whoami: whoamiCommand,
  usage: usageCommand,
  tools: toolsCommand,
  sethome: sethomeCommand,
  pair: pairCommand,
  reload_mcp: reloadMcpCommand,
};

export interface CommandHandler {
  /**
   * Answers one chat command without the model. The name may be as typed (alias, prefix);
   * unknown or ambiguous names and commands the sender may not run get a short hint. Never
   * throws for a command's own failure: that is logged and answered with a short apology.
   */
  handle(input: CommandInput): Promise<CommandResult>;
  /** The commands a sender may run, in menu order. */
  allowedCommands(isAdmin: boolean): CommandName[];
}

export function createCommandHandler(deps: CommandHandlerDeps): CommandHandler {
  const userCommands = deps.userCommands ?? deps.config.gateway.user_commands;
  const now = deps.now ?? Date.now;
  const logger = deps.logger.child({ component: 'chat-commands' });
  const scoped: CommandHandlerDeps = { ...deps, logger };

  return {
    allowedCommands: (isAdmin) => allowedCommands(userCommands, isAdmin),
    async handle(input) {
      const p = input.prefix ?? '/';
      const resolved = resolveCommand(input.name, input.args, p);
      if (resolved.kind !== 'command') return { replies: [resolved.hint] };
      const { name } = resolved;
      const allowed = allowedCommands(userCommands, input.isAdmin);
      if (!allowed.includes(name)) {
        return {
          replies: [
            commandSpec(name).adminOnly
              ? `Only admins can use ${p}${name}.`
              : `${p}${name} is not available to you here. ${p}help lists what you can use.`,
          ],
        };
      }
      const run: CommandRun = { deps: scoped, input, name, args: input.args, p, now, allowed };
      // Arguments are not logged: they can hold pairing codes or private text.
      logger.debug({ command: name, sessionKey: input.sessionKey, admin: input.isAdmin }, 'chat command');
      try {
        return { replies: await IMPLEMENTATIONS[name](run) };
      } catch (error) {
        logger.error({ err: error, command: name, sessionKey: input.sessionKey }, 'chat command failed');
        return { replies: [`Sorry — ${p}${name} failed on my side. Please try again in a moment.`] };
      }
    },
  };
}
