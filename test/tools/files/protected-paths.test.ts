import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRefusal, realPathOf, writeRefusal } from '../../../src/tools/files/protected-paths.js';
import { type FileToolKit, makeFileToolKit } from './file-tool-kit.js';

let kit: FileToolKit;
beforeEach(() => {
  kit = makeFileToolKit();
});
afterEach(() => kit.cleanup());

describe('realPathOf', () => {
  it('resolves existing paths, missing tails, ../ and symlinked parents', async () => {
    const cwd = realpathSync(kit.cwd);
    mkdirSync(join(kit.cwd, 'real'));
    symlinkSync(join(kit.cwd, 'real'), join(kit.cwd, 'link'));
    expect(await realPathOf(join(kit.cwd, 'link'))).toBe(join(cwd, 'real'));
    expect(await realPathOf(join(kit.cwd, 'link', 'new', 'file.txt'))).toBe(
      join(cwd, 'real', 'new', 'file.txt'),
    );
    expect(await realPathOf(join(kit.cwd, 'x', '..', 'link', 'f'))).toBe(join(cwd, 'real', 'f'));
  });

  it('follows dangling symlinks (also chained) to where a write would land', async () => {
    const cwd = realpathSync(kit.cwd);
    symlinkSync(join(kit.cwd, 'missing-target'), join(kit.cwd, 'first'));
    symlinkSync(join(kit.cwd, 'first'), join(kit.cwd, 'second'));
    expect(await realPathOf(join(kit.cwd, 'second'))).toBe(join(cwd, 'missing-target'));
  });

  it('gives up on symlink loops without hanging', async () => {
    symlinkSync(join(kit.cwd, 'b'), join(kit.cwd, 'a'));
    symlinkSync(join(kit.cwd, 'a'), join(kit.cwd, 'b'));
    expect(typeof (await realPathOf(join(kit.cwd, 'a')))).toBe('string');
  });
});

describe('writeRefusal / readRefusal', () => {
  it('refuses the gateway files and allows the rest of HERMES_HOME', async () => {
    const home = realpathSync(kit.home);
    expect(await writeRefusal(join(home, '.env'), kit.config)).toContain('secrets');
    expect(await writeRefusal(join(home, 'config.yaml'), kit.config)).toContain('configuration');
    expect(await writeRefusal(join(home, 'state.db-journal'), kit.config)).toContain('state database');
    expect(await writeRefusal(join(home, 'plugins', 'tool.ts'), kit.config)).toBeUndefined();
    expect(await writeRefusal(join(home, 'sub', 'state.db'), kit.config)).toBeUndefined();
    expect(await writeRefusal(join(kit.cwd, '.env'), kit.config)).toBeUndefined();
  });

  it('refuses reading only the gateway .env and process environments', async () => {
    writeFileSync(join(kit.home, '.env'), 'X=1\n');
    expect(await readRefusal(await realPathOf(join(kit.home, '.env')), kit.config)).toContain('secrets file');
    expect(await readRefusal(await realPathOf(join(kit.home, 'config.yaml')), kit.config)).toBeUndefined();
    expect(await readRefusal(join(kit.cwd, '.env'), kit.config)).toBeUndefined();
    expect(await readRefusal('/proc/1234/environ', kit.config)).toContain('process environments');
    expect(await readRefusal('/proc/1234/task/1235/environ', kit.config)).toContain('process environments');
    expect(await readRefusal('/proc/1234/status', kit.config)).toBeUndefined();
  });
});
