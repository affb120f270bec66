import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempHome } from './helpers/test-config.js';

const ROOT = resolve(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** `npm run boundaries` in `dir` (a copy of the project's config and tsconfig): exit code and report. */
function cruise(dir: string): { code: number | null; report: string } {
  const run = spawnSync(
    process.execPath,
    [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
    { cwd: dir, encoding: 'utf8', timeout: 120_000 },
  );
  return { code: run.status, report: `${run.stdout}${run.stderr}` };
}

describe('the import-boundary check (npm run boundaries)', () => {
  let temp: { home: string; cleanup: () => void };
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(temp.home, path)), { recursive: true });
    writeFileSync(join(temp.home, path), text);
  };

  beforeEach(() => {
    temp = makeTempHome('hermes-boundaries-');
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(temp.home, '.dependency-cruiser.cjs'));
    copyFileSync(join(ROOT, 'tsconfig.json'), join(temp.home, 'tsconfig.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(temp.home, 'node_modules'));
  });
  afterEach(() => temp.cleanup());

  it('passes on the sources as they are, and fails once a tool imports the gateway', () => {
    cpSync(join(ROOT, 'src'), join(temp.home, 'src'), { recursive: true });
    const clean = cruise(temp.home);
    expect(clean.report).toContain('no dependency violations found');
    expect(clean.code).toBe(0);

    put('src/tools/planted.ts', "export { buildSessionKey } from '../gateway/session-key.js';\n");
    const planted = cruise(temp.home);
    expect(planted.code).not.toBe(0);
    expect(planted.report).toContain('tools-import-no-gateway-or-platform-code');
    expect(planted.report).toContain('src/tools/planted.ts');
  });

  it('reports each rule of DESIGN.md when it is broken, type-only imports included', () => {
    const leaf = 'export const value = 1;\nexport type Shape = { readonly a: number };\n';
    for (const path of [
      'src/errors/hermes-error.ts',
      'src/lib/helper.ts',
      'src/gateway/turn/runner.ts',
      'src/gateway/queue/queue.ts',
      'src/platforms/adapter.ts',
      'src/platforms/webhook/route.ts',
      'src/app/compose.ts',
    ]) {
      put(path, leaf);
    }
    const planted: Record<string, [string, string]> = {
      'errors-import-nothing': ['src/errors/bad.ts', '../lib/helper.js'],
      'config-imports-nothing-of-ours': ['src/config/schema.ts', '../lib/helper.js'],
      'logging-is-low': ['src/logging/bad.ts', '../gateway/queue/queue.js'],
      'lib-is-generic': ['src/lib/bad.ts', '../gateway/queue/queue.js'],
      'registry-imports-no-gateway-platform-or-tool-code': ['src/registry/bad.ts', '../tools/tool.js'],
      'approval-imports-no-gateway-platform-or-tool-code': ['src/approval/bad.ts', '../platforms/adapter.js'],
      'tools-import-no-gateway-or-platform-code': ['src/tools/tool.ts', '../gateway/queue/queue.js'],
      'platforms-import-only-the-contract-ingress-config-and-lib': [
        'src/platforms/telegram/bad.ts',
        '../../gateway/turn/runner.js',
      ],
      'a-platform-imports-no-other-platform': ['src/platforms/feishu/bad.ts', '../webhook/route.js'],
      'the-platform-contract-names-no-platform': ['src/platforms/platform.ts', './webhook/route.js'],
      'gateway-imports-only-the-platform-contract': [
        'src/gateway/queue/bad.ts',
        '../../platforms/webhook/route.js',
      ],
      'nothing-imports-the-composition-root': ['src/gateway/turn/bad.ts', '../../app/compose.js'],
      'not-to-unresolvable': ['src/gateway/turn/missing.ts', './no-such-file.js'],
    };
    for (const [file, target] of Object.values(planted)) {
      put(file, `import type { Shape } from '${target}';\nexport const x: Shape | undefined = undefined;\n`);
    }
    // A cycle between two sibling folders, through values.
    put('src/gateway/delivery/a.ts', "import { b } from '../events/b.js';\nexport const a = b + 1;\n");
    put('src/gateway/events/b.ts', "import { value } from '../delivery/c.js';\nexport const b = value;\n");
    put('src/gateway/delivery/c.ts', "import { value } from '../../lib/helper.js';\nexport { value };\n");
    put('src/gateway/events/d.ts', "import { a } from '../delivery/a.js';\nexport const d = a;\n");

    const { code, report } = cruise(temp.home);
    expect(code).not.toBe(0);
    for (const [rule, [file]] of Object.entries(planted)) {
      expect(report, rule).toMatch(new RegExp(`${rule}: ${file.replaceAll('.', '\\.')}`));
    }
    expect(report).toContain('no-folder-cycles');
  });
});
