import { HermesError } from '../errors/hermes-error.js';
import {
  CORE_TOOLS,
  LEGACY_TOOLSETS,
  PLATFORM_PRESETS,
  TOOLSET_CATALOG,
  type ToolsetSpec,
} from './toolset-catalog.js';

/** What the resolver needs from the registry: which tools were registered into a toolset. */
export interface RegisteredTools {
  names(): string[];
  namesInToolset(toolset: string): string[];
  toolsets(): string[];
}

export interface ToolsetInfo {
  readonly name: string;
  readonly description: string;
  readonly tools: readonly string[];
  readonly includes: readonly string[];
  readonly resolved: readonly string[];
}

export interface Toolsets {
  /** Every known toolset name (static, custom, and toolsets that only exist in the registry), sorted. */
  names(): string[];
  has(name: string): boolean;
  /** The direct tools (static ∪ registered into it) and includes of one toolset. */
  get(name: string): ToolsetSpec | undefined;
  /** Tool names of a toolset with its includes, recursively; `all` / `*` means every toolset. */
  resolve(name: string): string[];
  /** Union of enabled toolsets (or tool names) minus disabled ones, sorted. */
  resolveSelection(enabled: readonly string[], disabled?: readonly string[]): string[];
  info(name: string): ToolsetInfo;
  /** Adds a toolset at run time; it resolves at once. */
  createCustomToolset(
    name: string,
    spec: { description?: string; tools?: readonly string[]; includes?: readonly string[] },
  ): void;
}

const NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export function createToolsets(
  registered: RegisteredTools,
  custom: Readonly<
    Record<string, { description: string; tools: readonly string[]; includes: readonly string[] }>
  > = {},
): Toolsets {
  const extra = new Map<string, ToolsetSpec>();
  const core = new Set(CORE_TOOLS);

  function staticSpec(name: string): ToolsetSpec | undefined {
    return extra.get(name) ?? TOOLSET_CATALOG[name];
  }

  function get(name: string): ToolsetSpec | undefined {
    const spec = staticSpec(name);
    const fromRegistry = registered.namesInToolset(name);
    if (spec === undefined) {
      if (fromRegistry.length === 0) return undefined;
      return { description: `Tools registered into '${name}'`, tools: fromRegistry, includes: [] };
    }
    if (fromRegistry.length === 0) return spec;
    return { ...spec, tools: [...new Set([...spec.tools, ...fromRegistry])].sort() };
  }

  function names(): string[] {
    return [...new Set([...Object.keys(TOOLSET_CATALOG), ...extra.keys(), ...registered.toolsets()])].sort();
  }

  function walk(name: string, visited: Set<string>, out: Set<string>): void {
    if (name === 'all' || name === '*') {
      for (const each of names()) walk(each, new Set(visited), out);
      return;
    }
    if (visited.has(name)) return;
    visited.add(name);
    const spec = get(name);
    if (spec === undefined) {
      for (const tool of LEGACY_TOOLSETS[name] ?? []) out.add(tool);
      return;
    }
    for (const tool of spec.tools) out.add(tool);
    for (const include of spec.includes) walk(include, visited, out);
  }

  function resolve(name: string): string[] {
    const out = new Set<string>();
    walk(name, new Set(), out);
    return [...out].sort();
  }

  function has(name: string): boolean {
    return name === 'all' || name === '*' || get(name) !== undefined || name in LEGACY_TOOLSETS;
  }

  /** For a platform preset, the tools it adds beyond the core (one level of includes). */
  function nonCore(name: string): string[] {
    const spec = get(name);
    if (spec === undefined) return [];
    const tools = new Set(spec.tools);
    for (const include of spec.includes) for (const tool of get(include)?.tools ?? []) tools.add(tool);
    return [...tools].filter((tool) => !core.has(tool));
  }

  const toolsets: Toolsets = {
    names,
    has,
    get,
    resolve,
    resolveSelection(enabled, disabled = []) {
      const chosen = new Set<string>();
      const tools = new Set(registered.names());
      const unknown: string[] = [];
      const expand = (entry: string): readonly string[] => {
        if (has(entry)) return resolve(entry);
        if (tools.has(entry)) return [entry];
        unknown.push(entry);
        return [];
      };
      for (const entry of enabled) for (const tool of expand(entry)) chosen.add(tool);
      for (const entry of disabled) {
        const removed = PLATFORM_PRESETS.includes(entry) ? nonCore(entry) : expand(entry);
        for (const tool of removed) chosen.delete(tool);
      }
      if (unknown.length > 0) {
        throw new HermesError(
          'toolset_unknown',
          `unknown toolset or tool: ${unknown.map((u) => `'${u}'`).join(', ')}; known toolsets: ${names().join(', ')}`,
        );
      }
      return [...chosen].sort();
    },
    info(name) {
      const spec = get(name);
      if (spec === undefined && !has(name)) {
        throw new HermesError('toolset_unknown', `unknown toolset '${name}'; known: ${names().join(', ')}`);
      }
      return {
        name,
        description:
          spec?.description ??
          (name in LEGACY_TOOLSETS
            ? `Legacy name for ${LEGACY_TOOLSETS[name]?.join(', ')}`
            : 'Every toolset'),
        tools: spec?.tools ?? [],
        includes: spec?.includes ?? [],
        resolved: resolve(name),
      };
    },
    createCustomToolset(name, spec) {
      if (!NAME.test(name) || name === 'all') {
        throw new HermesError(
          'toolset_invalid',
          `toolset name '${name}' must match ${NAME.source} and not be 'all'`,
        );
      }
      if (name in TOOLSET_CATALOG) {
        throw new HermesError('toolset_invalid', `toolset '${name}' is built in and cannot be redefined`);
      }
      extra.set(name, {
        description: spec.description ?? '',
        tools: [...(spec.tools ?? [])],
        includes: [...(spec.includes ?? [])],
      });
    },
  };
  for (const [name, spec] of Object.entries(custom)) toolsets.createCustomToolset(name, spec);
  return toolsets;
}
