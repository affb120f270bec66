import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import type { AnyParams, ToolDefinition, ToolSpec } from './tool-types.js';

const TOOL_NAME = /^(?:[a-z][a-z0-9_]{0,63}|mcp__[a-z0-9][a-z0-9_-]{0,47}__[a-zA-Z0-9_-]{1,64})$/;
const TOOLSET_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Declares a tool. Everything that can be checked without running it is checked here, so a
 * mistake fails when the module is loaded, with a message naming the tool — not at the first call.
 */
export function defineTool<P extends AnyParams>(spec: ToolSpec<P>): ToolDefinition<P> {
  const fail = (why: string): never => {
    throw new HermesError('tool_definition_invalid', `tool '${String(spec.name)}': ${why}`);
  };
  if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name)) {
    fail('name must match /^[a-z][a-z0-9_]{0,63}$/ (or mcp__<server>__<tool>)');
  }
  if (typeof spec.toolset !== 'string' || !TOOLSET_NAME.test(spec.toolset)) {
    fail(`toolset '${String(spec.toolset)}' must match /^[a-z][a-z0-9_-]{0,63}$/`);
  }
  if (spec.toolset.startsWith('mcp-') !== spec.name.startsWith('mcp__')) {
    fail('toolsets named mcp-<server> are reserved for MCP tools named mcp__<server>__<tool>');
  }
  if (typeof spec.description !== 'string' || spec.description.trim().length === 0) {
    fail('description must be a non-empty string');
  }
  if (typeof spec.handler !== 'function') fail('handler must be a function');
  if (!(spec.parameters instanceof z.ZodObject)) fail('parameters must be a zod object schema');
  const seen = new Map<string, string>();
  for (const key of Object.keys(spec.parameters.shape)) {
    const folded = key.toLowerCase().replace(/[-_]/g, '');
    const clash = seen.get(folded);
    if (clash !== undefined) fail(`parameters '${clash}' and '${key}' differ only in case or separators`);
    seen.set(folded, key);
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key)) fail(`parameter name '${key}' is not a plain identifier`);
  }
  if (spec.maxResultChars !== undefined && !(spec.maxResultChars > 0)) {
    fail('maxResultChars must be a positive number (Infinity to disable spill-over)');
  }
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = z.toJSONSchema(spec.parameters, {
      target: 'draft-7',
      io: 'input',
      unrepresentable: 'throw',
    }) as Record<string, unknown>;
  } catch (error) {
    return fail(`parameters cannot be expressed as JSON Schema: ${(error as Error).message}`);
  }
  delete jsonSchema['$schema'];
  return Object.freeze({ ...spec, kind: 'hermes-tool' as const, jsonSchema });
}

export function isToolDefinition(value: unknown): value is ToolDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'hermes-tool' &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}
