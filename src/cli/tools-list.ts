import { parseArgs } from 'node:util';
import type { Registry } from '../registry/create-registry.js';
import type { Toolsets } from '../registry/toolsets.js';
import { type CliIo, EXIT_OK, EXIT_USAGE } from './cli-io.js';

export interface ToolsListDeps {
  readonly registry: Registry;
  readonly toolsets: Toolsets;
}

/** `hermes-gateway tools list [--toolset NAME] [--json]` */
export function runToolsList(argv: readonly string[], io: CliIo, deps: ToolsListDeps): number {
  let values: { toolset?: string | undefined; json?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { toolset: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.stderr(
      `tools list: ${(error as Error).message}\nusage: hermes-gateway tools list [--toolset NAME] [--json]\n`,
    );
    return EXIT_USAGE;
  }
  const { registry, toolsets } = deps;
  if (values.toolset !== undefined) {
    const name = values.toolset;
    if (!toolsets.has(name)) {
      io.stderr(`tools list: unknown toolset '${name}'. Known toolsets: ${toolsets.names().join(', ')}\n`);
      return EXIT_USAGE;
    }
    const tools = toolsets.resolve(name);
    if (values.json) {
      io.stdout(`${JSON.stringify({ toolset: name, tools })}\n`);
    } else {
      const status = new Map(registry.status(tools).map((s) => [s.name, s]));
      io.stdout(`${name}: ${tools.length} tools\n`);
      for (const tool of tools) io.stdout(`  ${formatStatus(tool, status.get(tool))}\n`);
    }
    return EXIT_OK;
  }
  const status = registry.status();
  if (values.json) {
    const sets: Record<string, { tools: readonly string[]; includes: readonly string[] }> = {};
    for (const name of toolsets.names()) {
      const spec = toolsets.get(name);
      if (spec !== undefined) sets[name] = { tools: [...spec.tools], includes: [...spec.includes] };
    }
    const tools = status.map((s) => ({
      name: s.name,
      toolset: s.toolset,
      available: s.available,
      ...(s.available ? {} : { reason: s.reason ?? 'unavailable' }),
    }));
    io.stdout(`${JSON.stringify({ toolsets: sets, tools }, null, 2)}\n`);
    return EXIT_OK;
  }
  const width = Math.max(...status.map((s) => s.name.length), 4);
  const setWidth = Math.max(...status.map((s) => s.toolset.length), 7);
  io.stdout(`${status.length} tools (${status.filter((s) => s.available).length} available)\n`);
  for (const s of status) {
    io.stdout(
      `  ${s.name.padEnd(width)}  ${s.toolset.padEnd(setWidth)}  ${s.available ? 'available' : `unavailable: ${s.reason}`}\n`,
    );
  }
  io.stdout('\nToolsets:\n');
  for (const name of toolsets.names()) {
    const spec = toolsets.get(name);
    const includes = spec && spec.includes.length > 0 ? ` (includes ${spec.includes.join(', ')})` : '';
    io.stdout(`  ${name}: ${toolsets.resolve(name).length} tools${includes}\n`);
  }
  return EXIT_OK;
}

function formatStatus(name: string, status: { available: boolean; reason?: string } | undefined): string {
  if (status === undefined) return `${name}  (not registered)`;
  return status.available ? `${name}  available` : `${name}  unavailable: ${status.reason ?? ''}`;
}
