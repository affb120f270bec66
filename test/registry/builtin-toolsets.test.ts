import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime, type ToolRuntime } from '../../src/app/create-tool-runtime.js';
import { TOOLSET_CATALOG } from '../../src/registry/toolset-catalog.js';
import { makeTempHome, silentLogger, testConfig } from '../helpers/test-config.js';

describe('built-in tools and toolsets', () => {
  let temp: { home: string; cleanup: () => void };
  let runtime: ToolRuntime;
  beforeAll(async () => {
    temp = makeTempHome();
    runtime = await createToolRuntime({
      config: testConfig(temp.home),
      logger: silentLogger,
      baseEnv: {},
      builtinToolsDir: resolve(import.meta.dirname, '../../src/tools'),
    });
  });
  afterAll(async () => {
    await runtime.close();
    temp.cleanup();
  });

  it('discovers every built-in tool module without failures', () => {
    expect(runtime.discovery.failures).toStrictEqual([]);
    expect(runtime.discovery.rejected).toStrictEqual([]);
    expect(runtime.registry.sealed).toBe(true);
  });

  it('every name in every toolset resolves to a registered tool, and every include to a toolset', () => {
    const registered = new Set(runtime.registry.names());
    for (const [name, spec] of Object.entries(TOOLSET_CATALOG)) {
      for (const tool of spec.tools) expect(registered.has(tool), `${name} lists ${tool}`).toBe(true);
      for (const include of spec.includes)
        expect(runtime.toolsets.has(include), `${name} includes ${include}`).toBe(true);
      for (const tool of runtime.toolsets.resolve(name))
        expect(registered.has(tool), `${name} → ${tool}`).toBe(true);
    }
  });

  it('hermes-webhook is exactly the safe four, and hermes-gateway covers every preset', () => {
    expect(runtime.toolsets.resolve('hermes-webhook')).toStrictEqual([
      'clarify',
      'vision_analyze',
      'web_extract',
      'web_search',
    ]);
    const gateway = new Set(runtime.toolsets.resolve('hermes-gateway'));
    for (const preset of ['hermes-telegram', 'hermes-discord', 'hermes-feishu', 'hermes-api-server']) {
      for (const tool of runtime.toolsets.resolve(preset)) expect(gateway.has(tool)).toBe(true);
    }
    expect(runtime.toolsets.resolve('hermes-api-server')).not.toContain('clarify');
  });

  it('definitions of a preset are valid OpenAI function tools with object schemas', () => {
    for (const def of runtime.registry.getDefinitions(runtime.toolsets.resolve('hermes-gateway'))) {
      expect(def.type).toBe('function');
      expect(def.function.description.length).toBeGreaterThan(10);
      expect(def.function.parameters).toMatchObject({ type: 'object' });
    }
  });
});
