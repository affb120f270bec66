/**
 * The chat commands the gateway answers itself, without the model. One table drives parsing
 * (names, aliases, prefixes), permissions, `/help` and the platforms' native command menus.
 */

export const COMMAND_NAMES = [
  'help',
  'new',
  'status',
  'stop',
  'model',
  'approve',
  'deny',
  'yolo',
  'queue',
  'whoami',
  'usage',
  'tools',
  'sethome',
  'pair',
  'reload_mcp',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  /** Lower-case, without the prefix; also the menu entry (Telegram allows `[a-z0-9_]{1,32}`). */
  readonly name: CommandName;
  /** Other names that reach this command exactly (never by prefix). */
  readonly aliases: readonly string[];
  /** One line for the platform's native menu and `/help`. */
  readonly description: string;
  /** Only admins may run it, whatever `gateway.user_commands` says. */
  readonly adminOnly: boolean;
  /**
   * Runs at once even while a turn of the session is running: never waits behind it. The other
   * commands do not touch a running turn either, so ingress may run them inline too, or keep
   * them in arrival order with the session's messages.
   */
  readonly bypassesQueue: boolean;
  /** How to call it, e.g. `/approve [session|always] [all]` (with the default `/` prefix). */
  readonly usage: string;
}

const spec = (
  name: CommandName,
  description: string,
  usage: string,
  options: { aliases?: readonly string[]; adminOnly?: boolean; bypassesQueue?: boolean } = {},
): CommandSpec => ({
  name,
  aliases: options.aliases ?? [],
  description,
  adminOnly: options.adminOnly ?? false,
  bypassesQueue: options.bypassesQueue ?? false,
  usage,
});

/** Every command, in menu order. Structurally a `CommandInfo[]`, so it can go to `adapter.setCommands`. */
export const COMMANDS: readonly CommandSpec[] = [
  spec('help', 'Show the commands you can use here', '/help', { aliases: ['start'], bypassesQueue: true }),
  spec('new', 'Start a fresh conversation (stops the running task)', '/new [title]', {
    aliases: ['reset'],
    bypassesQueue: true,
  }),
  spec('status', 'Session, model, running task and pending approvals', '/status', { bypassesQueue: true }),
  spec('stop', 'Stop the running task and cancel its pending approvals', '/stop', { bypassesQueue: true }),
  spec('model', 'Show or change the model of this chat', '/model [name|default]'),
  spec('approve', 'Approve the oldest waiting command (or all)', '/approve [session|always] [all]', {
    bypassesQueue: true,
  }),
  spec('deny', 'Refuse the oldest waiting command (or all), with a reason', '/deny [reason] [all]', {
    bypassesQueue: true,
  }),
  spec('yolo', 'Toggle running risky commands without asking, for this chat', '/yolo [on|off]'),
  spec('queue', 'Queue a message for the next turn without interrupting', '/queue <message>', {
    aliases: ['q'],
    bypassesQueue: true,
  }),
  spec('whoami', 'Your user id, role and this chat’s session', '/whoami', { bypassesQueue: true }),
  spec('usage', 'Messages and tokens of this conversation', '/usage'),
  spec(
    'tools',
    'List the tools of this chat (admins: enable/disable toolsets)',
    '/tools [enable|disable <toolset>|reset]',
  ),
  spec('sethome', 'Make this chat the home channel for notifications', '/sethome', { aliases: ['set-home'] }),
  spec('pair', 'Approve a pairing code (admins)', '/pair <code>', { adminOnly: true }),
  spec(
    'reload_mcp',
    'Reconnect the MCP servers and list their tools again (admins)',
    '/reload_mcp (or /reload-mcp)',
    {
      aliases: ['reload-mcp'],
      adminOnly: true,
    },
  ),
];

/** Commands every user may run, admin or not. */
export const ALWAYS_ALLOWED: readonly CommandName[] = ['help', 'whoami'];

const BY_NAME: ReadonlyMap<CommandName, CommandSpec> = new Map(COMMANDS.map((entry) => [entry.name, entry]));

export function commandSpec(name: CommandName): CommandSpec {
  // Every name has an entry: COMMANDS lists each of COMMAND_NAMES (a test checks it).
  return BY_NAME.get(name)!;
}

export function isCommandName(value: string): value is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(value);
}
