import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry, type Registry } from '../../src/registry/create-registry.js';
import { defineTool } from '../../src/registry/define-tool.js';
import { CORE_TOOLS, TOOLSET_CATALOG } from '../../src/registry/toolset-catalog.js';
import { createToolsets } from '../../src/registry/toolsets.js';
import { makeTempHome, testConfig, testServices } from '../helpers/test-config.js';

function registryWith(names: Record<string, string>): Registry {
  const { home, cleanup } = makeTempHome();
  const registry = createRegistry({ services: testServices(testConfig(home)) });
  cleanup();
  for (const [name, toolset] of Object.entries(names)) {
    registry.register(
      defineTool({ name, toolset, description: name, parameters: z.object({}), handler: () => 'ok' }),
    );
  }
  return registry;
}

const builtins = Object.fromEntries(
  Object.values(TOOLSET_CATALOG)
    .flatMap((spec) => spec.tools)
    .map((name) => [name, 'builtin']),
);

describe('toolsets', () => {
  it('resolves simple toolsets', () => {
    const toolsets = createToolsets(registryWith(builtins));
    expect(toolsets.resolve('web')).toStrictEqual(['web_extract', 'web_search']);
    expect(toolsets.resolve('debugging')).toEqual(
      expect.arrayContaining(['terminal', 'web_search', 'read_file']),
    );
    expect(toolsets.resolve('nonexistent')).toStrictEqual([]);
  });

  it('merges tools registered into a toolset and toolsets that exist only in the registry', () => {
    const toolsets = createToolsets(
      registryWith({ ...builtins, web_search_plus: 'web', plugin_b: 'plugin_x', plugin_a: 'plugin_x' }),
    );
    expect(toolsets.get('web')?.tools).toStrictEqual(['web_extract', 'web_search', 'web_search_plus']);
    expect(toolsets.resolve('plugin_x')).toStrictEqual(['plugin_a', 'plugin_b']);
    expect(toolsets.has('plugin_x')).toBe(true);
  });

  it('survives cycles and resolves diamonds once', () => {
    const toolsets = createToolsets(registryWith(builtins));
    toolsets.createCustomToolset('cycle_a', { tools: ['t1'], includes: ['cycle_b'] });
    toolsets.createCustomToolset('cycle_b', { tools: ['t2'], includes: ['cycle_a'] });
    expect(toolsets.resolve('cycle_a')).toStrictEqual(['t1', 't2']);
    toolsets.createCustomToolset('top', { includes: ['left', 'right'] });
    toolsets.createCustomToolset('left', { tools: ['l'], includes: ['bottom'] });
    toolsets.createCustomToolset('right', { tools: ['r'], includes: ['bottom'] });
    toolsets.createCustomToolset('bottom', { tools: ['b'], includes: ['top'] });
    expect(toolsets.resolve('top')).toStrictEqual(['b', 'l', 'r']);
  });

  it('all and * resolve every toolset', () => {
    const registry = registryWith({ ...builtins, extra_tool: 'extra' });
    const toolsets = createToolsets(registry);
    expect(toolsets.resolve('all')).toStrictEqual(registry.names());
    expect(toolsets.resolve('*')).toStrictEqual(registry.names());
    expect(toolsets.has('all')).toBe(true);
  });

  it('accepts the legacy *_tools names', () => {
    const toolsets = createToolsets(registryWith(builtins));
    expect(toolsets.resolve('file_tools')).toStrictEqual([
      'patch',
      'read_file',
      'search_files',
      'write_file',
    ]);
    expect(toolsets.resolveSelection(['web_tools'])).toStrictEqual(['web_extract', 'web_search']);
  });

  it('creates custom toolsets at run time and from config', () => {
    const toolsets = createToolsets(registryWith(builtins), {
      mine: { description: 'from config', tools: ['web_search'], includes: ['terminal'] },
    });
    expect(toolsets.resolve('mine')).toStrictEqual(['process', 'terminal', 'web_search']);
    expect(() => toolsets.createCustomToolset('web', { tools: [] })).toThrow(/built in/);
    expect(() => toolsets.createCustomToolset('Bad Name', { tools: [] })).toThrow(/must match/);
  });

  it('presets: webhook is exactly the safe four, api-server is core without clarify and cronjob, gateway includes all', () => {
    const toolsets = createToolsets(registryWith(builtins));
    expect(toolsets.resolve('hermes-webhook')).toStrictEqual([
      'clarify',
      'vision_analyze',
      'web_extract',
      'web_search',
    ]);
    expect(toolsets.resolve('hermes-api-server')).toStrictEqual(
      [...CORE_TOOLS].filter((t) => t !== 'clarify' && t !== 'cronjob').sort(),
    );
    expect(toolsets.resolve('hermes-telegram')).toStrictEqual([...CORE_TOOLS].sort());
    for (const preset of [
      'hermes-telegram',
      'hermes-discord',
      'hermes-feishu',
      'hermes-webhook',
      'hermes-api-server',
    ]) {
      for (const tool of toolsets.resolve(preset)) expect(toolsets.resolve('hermes-gateway')).toContain(tool);
    }
  });

  it('platform presets pick up platform-only tools once registered', () => {
    const toolsets = createToolsets(registryWith({ ...builtins, discord_send: 'discord' }));
    expect(toolsets.resolve('hermes-discord')).toContain('discord_send');
    expect(toolsets.resolve('hermes-telegram')).not.toContain('discord_send');
  });

  it('disabling a platform preset removes only its non-core tools', () => {
    const toolsets = createToolsets(registryWith({ ...builtins, discord_send: 'discord' }));
    const selection = toolsets.resolveSelection(['hermes-discord'], ['hermes-discord']);
    expect(selection).toStrictEqual([...CORE_TOOLS].sort());
    expect(toolsets.resolveSelection(['hermes-telegram'], ['terminal'])).not.toContain('process');
    expect(toolsets.resolveSelection(['hermes-telegram'], ['write_file'])).toContain('read_file');
  });

  it('rejects unknown names in a selection, naming them', () => {
    const toolsets = createToolsets(registryWith(builtins));
    expect(() => toolsets.resolveSelection(['web', 'wbe'])).toThrow(/'wbe'/);
    expect(toolsets.resolveSelection(['read_file'])).toStrictEqual(['read_file']);
  });

  it('info describes a toolset and rejects unknown ones', () => {
    const toolsets = createToolsets(registryWith(builtins));
    expect(toolsets.info('debugging')).toMatchObject({ includes: ['web', 'file'] });
    expect(toolsets.info('debugging').resolved.length).toBeGreaterThan(
      toolsets.info('debugging').tools.length,
    );
    expect(() => toolsets.info('nope')).toThrow(/unknown toolset/);
  });
});
