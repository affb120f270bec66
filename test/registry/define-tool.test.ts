import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, isToolDefinition } from '../../src/registry/define-tool.js';

const base = {
  name: 'good_tool',
  toolset: 'test',
  description: 'does things',
  parameters: z.object({ path: z.string().describe('where'), limit: z.number().int().default(10) }),
  handler: () => 'ok',
};

describe('defineTool', () => {
  it('computes a JSON Schema once, with descriptions and without $schema', () => {
    const tool = defineTool(base);
    expect(isToolDefinition(tool)).toBe(true);
    expect(tool.jsonSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', description: 'where' }, limit: { type: 'integer', default: 10 } },
      required: ['path'],
    });
    expect(tool.jsonSchema).not.toHaveProperty('$schema');
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it.each([
    ['Bad-Name', { name: 'Bad-Name' }, /name must match/],
    ['empty name', { name: '' }, /name must match/],
    ['bad toolset', { toolset: 'Web Tools' }, /toolset/],
    ['mcp toolset for a plain tool', { toolset: 'mcp-github' }, /reserved for MCP/],
    ['mcp tool outside an mcp toolset', { name: 'mcp__github__issues' }, /reserved for MCP/],
    ['empty description', { description: '  ' }, /description/],
    ['not a zod object', { parameters: z.string() }, /zod object/],
    [
      'clashing parameters',
      { parameters: z.object({ filePath: z.string(), file_path: z.string() }) },
      /differ only/,
    ],
    ['unrepresentable schema', { parameters: z.object({ when: z.date() }) }, /JSON Schema/],
    ['bad maxResultChars', { maxResultChars: 0 }, /maxResultChars/],
  ])('rejects %s with a clear error', (_label, patch, pattern) => {
    expect(() => defineTool({ ...base, ...patch } as typeof base)).toThrow(pattern);
  });

  it('accepts MCP tools in mcp- toolsets', () => {
    expect(defineTool({ ...base, name: 'mcp__github__list_issues', toolset: 'mcp-github' }).name).toBe(
      'mcp__github__list_issues',
    );
  });

  it('isToolDefinition rejects look-alikes', () => {
    expect(isToolDefinition({ name: 'x' })).toBe(false);
    expect(isToolDefinition(null)).toBe(false);
    expect(isToolDefinition('tool')).toBe(false);
  });
});
