import { defaultToolsets } from '../turn/resolve-session-tools.js';
import type { CommandImpl, CommandRun } from './command-context.js';
import { plural } from './command-text.js';

const SHOWN_TOOLSETS = 40;

/**
 * `/tools`: the toolsets and tools of this chat. Admins change them for the chat with
 * `/tools enable <toolset>`, `/tools disable <toolset>` and `/tools reset` (the session's
 * toolset overrides; the turn runner applies them from the next turn).
 */
export const toolsCommand: CommandImpl = async (run) => {
  const [action = '', name = '', ...extra] = run.args.trim().split(/\s+/).filter(Boolean);
  const verb = action.toLowerCase();
  if (verb === '' || verb === 'list') return [await describeTools(run)];
  if (
    !['enable', 'disable', 'reset'].includes(verb) ||
    extra.length > 0 ||
    (verb !== 'reset') !== (name !== '')
  ) {
    return [
      `Usage: ${run.p}tools — list; admins: ${run.p}tools enable <toolset>, ${run.p}tools disable <toolset>, ${run.p}tools reset`,
    ];
  }
  if (!run.input.isAdmin) return [`Only admins can change the tools of a chat. ${run.p}tools lists them.`];
  if (verb === 'reset') {
    await run.deps.store.updateSession(run.input.sessionKey, { toolsetOverrides: null });
    return [
      `Tools are back to the default for ${run.input.platform} (${defaultToolsets(run.deps.config, run.input.platform).join(', ')}).`,
    ];
  }
  const toolset = name.toLowerCase();
  if (!run.deps.toolsets.has(toolset) || toolset === 'all' || toolset === '*') {
    return [`Unknown toolset "${toolset.slice(0, 64)}". Known toolsets: ${knownToolsets(run)}`];
  }
  return [verb === 'enable' ? await enable(run, toolset) : await disable(run, toolset)];
};

async function currentBase(run: CommandRun): Promise<readonly string[]> {
  const session = await run.deps.store.getOrCreateSession(run.input.sessionKey);
  return session.toolsetOverrides ?? defaultToolsets(run.deps.config, run.input.platform);
}

async function enable(run: CommandRun, toolset: string): Promise<string> {
  const base = await currentBase(run);
  const covered = new Set(effectiveTools(run, base));
  if (base.includes(toolset) || run.deps.toolsets.resolve(toolset).every((tool) => covered.has(tool))) {
    return `${toolset} is already enabled in this chat.`;
  }
  await run.deps.store.updateSession(run.input.sessionKey, { toolsetOverrides: [...base, toolset] });
  return `Enabled ${toolset} for this chat, from the next turn on.`;
}

/**
 * Removes a toolset. When it is part of a larger entry (a platform preset), the chat's selection
 * is spelled out as tool names without that toolset's tools.
 */
async function disable(run: CommandRun, toolset: string): Promise<string> {
  const { toolsets } = run.deps;
  const base = await currentBase(run);
  const removing = new Set(toolsets.resolve(toolset));
  if (!effectiveTools(run, base).some((tool) => removing.has(tool))) {
    return `${toolset} is not enabled in this chat.`;
  }
  const rest = base.filter((entry) => entry !== toolset);
  const next = toolsets.resolveSelection(rest).some((tool) => removing.has(tool))
    ? toolsets.resolveSelection(base).filter((tool) => !removing.has(tool) && isKnownTool(run, tool))
    : rest;
  if (effectiveTools(run, next).some((tool) => removing.has(tool))) {
    return `${toolset} comes from the gateway configuration (tools.enabled_toolsets), so it cannot be disabled for one chat.`;
  }
  await run.deps.store.updateSession(run.input.sessionKey, { toolsetOverrides: next });
  return `Disabled ${toolset} for this chat, from the next turn on. ${run.p}tools reset restores the default.`;
}

/** A tool name the registry knows (a toolset may list tools that are not registered here). */
function isKnownTool(run: CommandRun, tool: string): boolean {
  try {
    run.deps.toolsets.resolveSelection([tool]);
    return true;
  } catch {
    return false;
  }
}

async function describeTools(run: CommandRun): Promise<string> {
  const session = await run.deps.store.getOrCreateSession(run.input.sessionKey);
  const base = session.toolsetOverrides ?? defaultToolsets(run.deps.config, run.input.platform);
  let tools: string[];
  try {
    tools = effectiveTools(run, base);
  } catch {
    return `This chat's tool selection (${base.join(', ')}) names something unknown. An admin can fix it with ${run.p}tools reset.`;
  }
  const lines = [
    `Toolsets: ${base.length === 0 ? '(none)' : base.join(', ')}${session.toolsetOverrides === undefined ? ' (default)' : ' (chosen for this chat)'}`,
    `Tools (${tools.length}): ${tools.length === 0 ? '(none)' : tools.join(', ')}`,
  ];
  if (run.input.isAdmin) {
    lines.push(`Available toolsets: ${knownToolsets(run)}`);
    lines.push(
      `Change with ${run.p}tools enable <toolset>, ${run.p}tools disable <toolset> or ${run.p}tools reset.`,
    );
  }
  return lines.join('\n');
}

/** The tools a turn of this chat gets from `base` (same rule as the turn runner, without the origin). */
function effectiveTools(run: CommandRun, base: readonly string[]): string[] {
  const { config, toolsets } = run.deps;
  const extra = run.input.platform === 'webhook' ? [] : config.tools.enabled_toolsets;
  return toolsets.resolveSelection([...base, ...extra], config.tools.disabled_toolsets);
}

function knownToolsets(run: CommandRun): string {
  const names = run.deps.toolsets.names();
  const shown = names.slice(0, SHOWN_TOOLSETS).join(', ');
  return names.length > SHOWN_TOOLSETS
    ? `${shown} and ${plural(names.length - SHOWN_TOOLSETS, 'more')}`
    : shown;
}
