import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/registry/create-registry.js';
import { discoverTools } from '../../src/registry/discover-tools.js';
import { makeTempHome, testConfig, testServices } from '../helpers/test-config.js';

const defineToolPath = resolve(import.meta.dirname, '../../src/registry/define-tool.ts');
const zodImport = "import { z } from 'zod';";

describe('discoverTools', () => {
  let temp: { home: string; cleanup: () => void };
  let pluginDir: string;
  let logs: string[];
  beforeEach(() => {
    temp = makeTempHome();
    pluginDir = join(temp.home, 'plugins');
    mkdirSync(pluginDir);
    logs = [];
  });
  afterEach(() => temp.cleanup());

  function plugin(name: string, body: string): void {
    writeFileSync(
      join(pluginDir, name),
      `${zodImport}\nimport { defineTool } from '${defineToolPath}';\n${body}\n`,
    );
  }

  function tool(name: string, toolset = 'plugin_demo'): string {
    return `defineTool({ name: '${name}', toolset: '${toolset}', description: '${name}', parameters: z.object({}), handler: () => '${name} ran' })`;
  }

  it('registers every exported tool, skips a broken module and keeps going', async () => {
    plugin(
      'a-good.ts',
      `export const good = ${tool('plugin_good')};\nexport const notATool = { name: 'x' };`,
    );
    plugin(
      'b-broken.ts',
      `throw new Error('this plugin is broken');\nexport const never = ${tool('never_registered')};`,
    );
    plugin('c-many.ts', `export const pair = [${tool('plugin_one')}, ${tool('plugin_two')}];`);
    plugin('d-invalid.ts', `export const bad = ${tool('Bad Name')};`);
    writeFileSync(join(pluginDir, 'notes.md'), '# not code');
    writeFileSync(join(pluginDir, 'e.test.ts'), 'throw new Error("tests are never imported")');
    mkdirSync(join(pluginDir, 'helpers'));
    writeFileSync(join(pluginDir, 'helpers', 'x.ts'), 'throw new Error("sub-folders are not scanned")');

    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _e, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    const registry = createRegistry({ services: testServices(testConfig(temp.home), { logger }) });
    const report = await discoverTools({ registry, dirs: [pluginDir, join(temp.home, 'missing')], logger });

    expect(registry.names()).toStrictEqual(['plugin_good', 'plugin_one', 'plugin_two']);
    expect(report.registered).toStrictEqual(['plugin_good', 'plugin_one', 'plugin_two']);
    expect(report.failures.map((f) => f.file.split('/').pop())).toStrictEqual([
      'b-broken.ts',
      'd-invalid.ts',
    ]);
    expect(report.failures[0]?.error).toContain('this plugin is broken');
    expect(report.failures[1]?.error).toContain("tool 'Bad Name'");
    expect(logs.join('')).toContain('tool module failed to load');
    const result = await registry.dispatch('plugin_one', {}, { sessionKey: 's', taskId: 't' });
    expect(result.content).toBe('plugin_one ran');
  });

  it('calls a default-exported factory with defineTool and z, so a plugin needs no imports', async () => {
    writeFileSync(
      join(pluginDir, 'factory.mjs'),
      `export default ({ defineTool, z }) => [defineTool({ name: 'from_factory', toolset: 'plugin_f', description: 'made by a factory', parameters: z.object({ n: z.number() }), handler: ({ n }) => n * 2 })];`,
    );
    writeFileSync(
      join(pluginDir, 'factory-broken.mjs'),
      `export default () => { throw new Error('factory exploded'); };`,
    );
    const registry = createRegistry({ services: testServices(testConfig(temp.home)) });
    const report = await discoverTools({ registry, dirs: [pluginDir], logger: registry.services.logger });
    expect(report.registered).toStrictEqual(['from_factory']);
    expect(report.failures.map((f) => f.error)).toStrictEqual(['factory exploded']);
    const result = await registry.dispatch('from_factory', { n: '21' }, { sessionKey: 's', taskId: 't' });
    expect(result.content).toBe('42');
  });

  it('reports a tool that would shadow another toolset as rejected', async () => {
    plugin('a.ts', `export const t = ${tool('same_name', 'first')};`);
    plugin('b.ts', `export const t = ${tool('same_name', 'second')};`);
    const registry = createRegistry({ services: testServices(testConfig(temp.home)) });
    const report = await discoverTools({ registry, dirs: [pluginDir], logger: registry.services.logger });
    expect(report.registered).toStrictEqual(['same_name']);
    expect(report.rejected).toStrictEqual(['same_name']);
    expect(registry.get('same_name')?.toolset).toBe('first');
  });
});
