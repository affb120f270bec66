/**
 * The static toolsets: named groups of tools and of other toolsets. Tools registered into a
 * toolset by name (plugins, MCP servers, Discord-only tools) are merged in at resolution time,
 * so a preset like `hermes-discord` picks up the Discord tools once they exist.
 */
export interface ToolsetSpec {
  readonly description: string;
  readonly tools: readonly string[];
  readonly includes: readonly string[];
}

/**
 * The core every chat platform gets. Adding a tool here adds it to every platform preset.
 * Only names of tools that exist belong here (a test checks each resolves to a registered tool).
 */
export const CORE_TOOLS: readonly string[] = [
  'web_search',
  'web_extract',
  'terminal',
  'process',
  'read_file',
  'write_file',
  'patch',
  'search_files',
  'vision_analyze',
  'clarify',
  'todo',
  'memory',
  'session_search',
  'delegate_task',
];

/** Inbound webhooks carry untrusted third-party content: no file access, no command execution. */
export const WEBHOOK_SAFE_TOOLS: readonly string[] = [
  'web_search',
  'web_extract',
  'vision_analyze',
  'clarify',
];

const group = (
  description: string,
  tools: readonly string[],
  includes: readonly string[] = [],
): ToolsetSpec => ({
  description,
  tools,
  includes,
});

export const TOOLSET_CATALOG: Readonly<Record<string, ToolsetSpec>> = {
  web: group('Web search and page extraction', ['web_search', 'web_extract']),
  search: group('Web search only', ['web_search']),
  vision: group('Image analysis', ['vision_analyze']),
  terminal: group('Shell commands and background processes', ['terminal', 'process']),
  file: group('Read, write, patch and search files', ['read_file', 'write_file', 'patch', 'search_files']),
  clarify: group('Ask the user a question', ['clarify']),
  todo: group('A task list for the current session', ['todo']),
  memory: group('Persistent notes and a user profile', ['memory']),
  session_search: group('Search earlier conversations of the same chat', ['session_search']),
  delegation: group('Hand a sub-task to a sub-agent with a narrower toolset', ['delegate_task']),
  debugging: group('Terminal plus web and files, for debugging', ['terminal', 'process'], ['web', 'file']),
  safe: group('Tools that cannot change the machine', [], ['web', 'vision']),
  discord: group('Discord-only tools (registered by the Discord platform)', []),
  discord_admin: group('Discord server administration tools (registered by the Discord platform)', []),
  feishu_doc: group('Feishu/Lark document tools (registered by the Feishu platform)', []),
  feishu_drive: group('Feishu/Lark drive comment tools (registered by the Feishu platform)', []),
  'hermes-cli': group('Everything the core offers, for local use', CORE_TOOLS),
  'hermes-telegram': group('Telegram preset: the core tools', CORE_TOOLS),
  'hermes-discord': group('Discord preset: the core tools plus Discord-only tools', CORE_TOOLS, [
    'discord',
    'discord_admin',
  ]),
  'hermes-feishu': group('Feishu/Lark preset: the core tools plus Feishu document tools', CORE_TOOLS, [
    'feishu_doc',
    'feishu_drive',
  ]),
  'hermes-api-server': group(
    'OpenAI-compatible API preset: the core without clarify (nobody can be asked)',
    CORE_TOOLS.filter((name) => name !== 'clarify'),
  ),
  'hermes-api-attended': group(
    'API runs someone attends (POST /v1/runs with attended): the API preset plus clarify',
    ['clarify'],
    ['hermes-api-server'],
  ),
  'hermes-webhook': group('Inbound webhook preset: the safe subset only', WEBHOOK_SAFE_TOOLS),
  'hermes-gateway': group(
    'Every platform preset together',
    [],
    ['hermes-telegram', 'hermes-discord', 'hermes-feishu', 'hermes-api-server', 'hermes-webhook'],
  ),
};

/** Platform presets: disabling one removes only its non-core tools, never the core. */
export const PLATFORM_PRESETS: readonly string[] = Object.keys(TOOLSET_CATALOG).filter((name) =>
  name.startsWith('hermes-'),
);

/** Hermes' old `*_tools` names, accepted wherever a toolset name is. */
export const LEGACY_TOOLSETS: Readonly<Record<string, readonly string[]>> = {
  web_tools: ['web_search', 'web_extract'],
  terminal_tools: ['terminal'],
  vision_tools: ['vision_analyze'],
  file_tools: ['read_file', 'write_file', 'patch', 'search_files'],
};
