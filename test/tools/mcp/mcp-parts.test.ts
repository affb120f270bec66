import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../../src/config/config-schema.js';
import { defaultToolsets, resolveSessionTools } from '../../../src/gateway/turn/resolve-session-tools.js';
import { createRegistry } from '../../../src/registry/create-registry.js';
import { defineTool } from '../../../src/registry/define-tool.js';
import { mcpToolsetSpecs } from '../../../src/registry/mcp-toolsets.js';
import { createToolsets } from '../../../src/registry/toolsets.js';
import { mcpResultText } from '../../../src/tools/mcp/mcp-result-text.js';
import { mcpToolName } from '../../../src/tools/mcp/mcp-tool-name.js';
import { sanitizeMcpSchema } from '../../../src/tools/mcp/sanitize-mcp-schema.js';
import { makeTempHome, testConfig, testServices } from '../../helpers/test-config.js';
import { writeConfig } from './mcp-helpers.js';

describe('mcp_servers in config.yaml (strict schema)', () => {
  const parse = (servers: unknown) => configSchema.safeParse({ mcp_servers: servers });

  it('accepts a stdio and an HTTP server with defaults', () => {
    const parsed = parse({
      gh: { command: 'npx', args: ['-y', 'server'] },
      remote: { url: 'https://example.test/mcp' },
    });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.mcp_servers['gh']).toMatchObject({
      timeout: 120,
      connect_timeout: 60,
      enabled: true,
      approval: 'destructive',
    });
  });

  it.each([
    ['both command and url', { x: { command: 'a', url: 'http://127.0.0.1/mcp' } }],
    ['neither', { x: { args: ['a'] } }],
    ['an unknown key', { x: { command: 'a', comand: 'b' } }],
    ['headers on stdio', { x: { command: 'a', headers: { A: 'b' } } }],
    ['env on http', { x: { url: 'http://127.0.0.1/mcp', env: { A: 'b' } } }],
    ['include and exclude', { x: { command: 'a', tools: { include: ['a'], exclude: ['b'] } } }],
    ['a name with __', { a__b: { command: 'a' } }],
    ['an upper-case name', { GitHub: { command: 'a' } }],
    ['an unknown approval', { x: { command: 'a', approval: 'sometimes' } }],
  ])('refuses %s', (_why, servers) => {
    expect(parse(servers).success).toBe(false);
  });
});

describe('MCP tool names and schemas for the model', () => {
  it('names tools mcp__<server>__<tool>, replacing characters model APIs refuse, within 64 characters', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('fs', 'read.file/v2')).toBe('mcp__fs__read_file_v2');
    const long = mcpToolName('server', 'x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).not.toBe(mcpToolName('server', `${'x'.repeat(99)}y`));
  });

  it('inlines local $refs, drops $schema/$defs, keeps required to existing properties', () => {
    const schema = sanitizeMcpSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      $defs: {
        Item: { type: 'object', properties: { id: { type: 'string', format: 'weird' } }, required: ['id'] },
      },
      properties: {
        item: { $ref: '#/$defs/Item' },
        tree: { $ref: '#/$defs/Missing', description: 'a tree' },
      },
      required: ['item', 'ghost'],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        item: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        tree: { description: 'a tree' },
      },
      required: ['item'],
    });
  });

  it('makes anything that is not an object schema an empty object schema', () => {
    expect(sanitizeMcpSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(sanitizeMcpSchema({ type: 'string' })).toEqual({ type: 'object', properties: {} });
    expect(sanitizeMcpSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });

  it('turns result content into text (images noted, not sent)', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///x', text: 'body' } },
        ],
      }),
    ).toEqual({
      text: 'a\n[image image/png, 3 bytes, not shown]\n[resource file:///x]\nbody',
      isError: false,
    });
    expect(mcpResultText({ content: [], structuredContent: { n: 1 }, isError: true })).toEqual({
      text: '{"n":1}',
      isError: true,
    });
  });
});

describe('which sessions get an MCP toolset by default', () => {
  it('chat platforms and the API server, never webhooks; platforms: narrows; disabled servers never', () => {
    const temp = makeTempHome('hermes-mcp-ts-');
    try {
      writeConfig(temp.home, {
        mcp_servers: {
          everywhere: { command: 'a' },
          tg: { command: 'a', platforms: ['telegram'] },
          off: { command: 'a', enabled: false },
        },
      });
      const config = testConfig(temp.home);
      expect(defaultToolsets(config, 'telegram')).toEqual(['hermes-telegram', 'mcp-everywhere', 'mcp-tg']);
      expect(defaultToolsets(config, 'api_server')).toEqual(['hermes-api-server', 'mcp-everywhere']);
      expect(defaultToolsets(config, 'webhook')).toEqual(['hermes-webhook']);
      const registry = createRegistry({ services: testServices(config) });
      registry.seal();
      // Registered after the seal, as a server's tools are when it connects.
      registry.register(
        defineTool({
          name: 'mcp__everywhere__ping',
          toolset: 'mcp-everywhere',
          description: 'Ping.',
          parameters: z.object({}),
          handler: () => 'pong',
        }),
      );
      const toolsets = createToolsets(registry, mcpToolsetSpecs(config));
      // Known before any connection, so selections naming them resolve.
      expect(toolsets.has('mcp-off')).toBe(true);
      expect(
        resolveSessionTools({
          origin: { platform: 'webhook', toolset: 'hermes-webhook' } as never,
          session: { toolsetOverrides: undefined },
          config,
          toolsets,
        }),
      ).not.toContain('mcp__everywhere__ping');
      expect(
        resolveSessionTools({
          origin: { platform: 'telegram' } as never,
          session: { toolsetOverrides: undefined },
          config,
          toolsets,
        }),
      ).toContain('mcp__everywhere__ping');
      expect(() =>
        resolveSessionTools({
          origin: { platform: 'discord' } as never,
          session: { toolsetOverrides: ['mcp-tg'] },
          config,
          toolsets,
        }),
      ).not.toThrow();
    } finally {
      temp.cleanup();
    }
  });
});
