import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realPathOf } from '../../../src/tools/files/protected-paths.js';
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
