import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importModule } from '../../src/registry/import-module.js';
import { makeTempHome } from '../helpers/test-config.js';

/** What plain Node (no TypeScript loader: the compiled build) reports for `import('x.ts')`. */
const noTypeScript = async (url: string): Promise<never> => {
  throw Object.assign(new TypeError(`Unknown file extension ".ts" for ${url}`), {
    code: 'ERR_UNKNOWN_FILE_EXTENSION',
  });
};

/** A plugin as docs/tools.md shows it: ES module syntax, a default-exported factory, types. */
const PLUGIN = [
  // A type first: Node's CommonJS loader, given this untransformed, stops at it with a SyntaxError.
  'interface Api { readonly defineTool: (definition: unknown) => unknown }',
  "import { twice } from './helper.ts';",
  'export const answer: number = twice(21);',
  "export default ({ defineTool }: Api) => defineTool({ name: 'plugin_answer' });",
  '',
].join('\n');

describe('importModule', () => {
  let temp: { home: string; cleanup: () => void };
  beforeEach(() => {
    temp = makeTempHome();
    // No package.json here: the folder is not "type": "module", like $HERMES_HOME/plugins.
    writeFileSync(join(temp.home, 'helper.ts'), 'export const twice = (n: number): number => n * 2;\n');
    writeFileSync(join(temp.home, 'plugin.ts'), PLUGIN);
  });
  afterEach(() => temp.cleanup());

  it('loads a .ts plugin through tsx when the process has no TypeScript loader', async () => {
    const loaded = await importModule(join(temp.home, 'plugin.ts'), noTypeScript);
    expect(loaded['answer']).toBe(42);
    expect(typeof loaded['default']).toBe('function');
    const factory = loaded['default'] as (api: { defineTool: (d: unknown) => unknown }) => unknown;
    expect(factory({ defineTool: (d) => d })).toStrictEqual({ name: 'plugin_answer' });
  });

  it('loads it in a process running the sources as bin/hermes-gateway does (plain import: a require() cycle)', async () => {
    // tsx's ESM loader only, registered the way the executable does it.
    const script = [
      "import { register } from 'tsx/esm/api';",
      'register();',
      "const { importModule } = await import('./src/registry/import-module.ts');",
      `const loaded = await importModule(${JSON.stringify(join(temp.home, 'plugin.ts'))});`,
      'console.log(JSON.stringify({ answer: loaded.answer, factory: typeof loaded.default }));',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(errors).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(output)).toStrictEqual({ answer: 42, factory: 'function' });
  });

  it('uses the native import when it works', async () => {
    const file = join(temp.home, 'plain.mjs');
    writeFileSync(file, 'export const kind = "native";\n');
    const seen: string[] = [];
    const loaded = await importModule(file, async (url) => {
      seen.push(url);
      return import(url);
    });
    expect(loaded['kind']).toBe('native');
    expect(seen).toHaveLength(1);
  });

  it('passes other failures on: a broken .ts module, a JavaScript file, another error', async () => {
    const broken = join(temp.home, 'broken.ts');
    writeFileSync(broken, "throw new Error('this plugin is broken');\n");
    await expect(importModule(broken, noTypeScript)).rejects.toThrow('this plugin is broken');
    await expect(importModule(join(temp.home, 'x.mjs'), noTypeScript)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_FILE_EXTENSION',
    });
    const failing = async () => {
      throw new Error('disk on fire');
    };
    await expect(importModule(join(temp.home, 'y.ts'), failing)).rejects.toThrow('disk on fire');
  });
});
