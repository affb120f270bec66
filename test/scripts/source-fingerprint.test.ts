import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_INFO, distStatus, sourceFingerprint } from '../../scripts/source-fingerprint.mjs';
import { makeTempHome } from '../helpers/test-config.js';

describe('distStatus: is dist/ a build of the sources as they are?', () => {
  let temp: { home: string; cleanup: () => void };
  let root: string;
  /** Files get a fixed, old mtime so that each change below is the only newer thing. */
  const old = new Date('2026-01-01T00:00:00Z');
  const put = (path: string, text: string) => {
    writeFileSync(join(root, path), text);
    utimesSync(join(root, path), old, old);
  };
  const recordBuild = () => {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, BUILD_INFO), JSON.stringify(sourceFingerprint(root)));
  };

  beforeEach(() => {
    temp = makeTempHome();
    root = temp.home;
    mkdirSync(join(root, 'src', 'tools'), { recursive: true });
    put('src/main.ts', 'export const main = 1;\n');
    put('src/tools/a.ts', 'export const a = 1;\n');
    put('tsconfig.json', '{}\n');
    for (const dir of ['src/tools', 'src']) utimesSync(join(root, dir), old, old);
  });
  afterEach(() => temp.cleanup());

  it('is not current without a build, and current right after one', () => {
    expect(distStatus(root)).toMatchObject({ current: false, reason: expect.stringContaining('no build') });
    recordBuild();
    expect(distStatus(root)).toStrictEqual({ current: true });
  });

  it('is stale after a source is edited, even to the same size', () => {
    recordBuild();
    writeFileSync(join(root, 'src/main.ts'), 'export const main = 2;\n');
    expect(distStatus(root)).toMatchObject({
      current: false,
      reason: expect.stringContaining('other sources'),
    });
  });

  it('stays current when only the mtimes change (files copied or checked out again)', () => {
    recordBuild();
    const now = new Date();
    for (const path of ['src/main.ts', 'src/tools/a.ts', 'src/tools', 'src', 'tsconfig.json']) {
      utimesSync(join(root, path), now, now);
    }
    expect(distStatus(root)).toStrictEqual({ current: true });
  });

  it('is stale after a source is added, removed or renamed', () => {
    recordBuild();
    writeFileSync(join(root, 'src/tools/b.ts'), 'export const b = 1;\n');
    expect(distStatus(root).current).toBe(false);

    recordBuild();
    rmSync(join(root, 'src/tools/b.ts'));
    expect(distStatus(root).current).toBe(false);

    recordBuild();
    renameSync(join(root, 'src/tools/a.ts'), join(root, 'src/tools/z.ts'));
    expect(distStatus(root).current).toBe(false);
  });

  it('is stale after the compiler settings change', () => {
    recordBuild();
    writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}\n');
    expect(distStatus(root).current).toBe(false);
  });

  it('is not current when the build record is unreadable', () => {
    recordBuild();
    writeFileSync(join(root, BUILD_INFO), '{ half a record');
    expect(distStatus(root).current).toBe(false);
    writeFileSync(join(root, BUILD_INFO), '{"summary":null,"digest":null}');
    expect(distStatus(root).current).toBe(false);
  });
});
