import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BROWSER_SCRIPTS, buildUiAssets, describeUiSizes } from '../../src/app/ui-assets.js';
import { DASHBOARD_SCRIPT } from '../../src/gateway/dashboard/bundle-dashboard.js';
import { loadBrowserScript, packageLayout } from '../../src/lib/browser-script.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the web pages’ scripts, built at install time', () => {
  const temp: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-ui-'));
    temp.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of temp.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('knows whether it runs compiled (dist/src/…) or from the sources, and where the package is', () => {
    expect(packageLayout('file:///opt/hermes/dist/src/lib/browser-script.js')).toEqual({
      root: '/opt/hermes',
      compiled: true,
    });
    expect(packageLayout('file:///opt/hermes/src/lib/browser-script.ts')).toEqual({
      root: '/opt/hermes',
      compiled: false,
    });
    expect(packageLayout()).toEqual({ root: ROOT, compiled: false });
  });

  it('bundles every script into dist/ui with no network, and measures scripts and pages (bytes, gzip)', async () => {
    const out = scratch();
    const sizes = await buildUiAssets(ROOT, out);
    expect(sizes.map((size) => size.name)).toEqual(['dashboard.js', 'chat.js', '/ui', '/ui/chat']);
    for (const script of BROWSER_SCRIPTS) {
      const text = readFileSync(join(out, script.name), 'utf8');
      const size = sizes.find((entry) => entry.name === script.name);
      expect(size?.bytes).toBe(Buffer.byteLength(text));
      expect(gunzipSync(gzipSync(text, { level: 9 })).toString()).toBe(text);
      expect(size?.gzipBytes).toBe(gzipSync(text, { level: 9 }).length);
      // Small: a budget, so growth is a decision (docs/dashboard.md reports the sizes).
      expect(size?.gzipBytes).toBeLessThan(8 * 1024);
      // Self-contained: nothing fetched from elsewhere at run time.
      expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
      expect(text).not.toMatch(/\bimport\s*\(|^import /m);
    }
    expect(describeUiSizes(sizes)).toMatch(
      /^dashboard\.js \d+ B = [\d.]+ KB \(\d+ B = [\d.]+ KB gzip\), chat\.js/,
    );
  });

  it('a compiled run serves the built file; a run from the sources bundles the sources', async () => {
    const root = scratch();
    mkdirSync(join(root, 'dist', 'ui'), { recursive: true });
    writeFileSync(join(root, 'dist', 'ui', 'dashboard.js'), 'built();');
    await expect(loadBrowserScript(DASHBOARD_SCRIPT, { root, compiled: true })).resolves.toEqual({
      text: 'built();',
      from: 'build',
    });
    // From the sources, a stale dist/ui is never used.
    const fromSources = await loadBrowserScript(DASHBOARD_SCRIPT, { root: ROOT, compiled: false });
    expect(fromSources.from).toBe('sources');
    const out = scratch();
    await buildUiAssets(ROOT, out);
    expect(fromSources.text).toBe(readFileSync(join(out, 'dashboard.js'), 'utf8'));
    // A compiled run whose bundle is missing bundles from the checkout rather than fail.
    const bare = scratch();
    mkdirSync(join(bare, 'src/gateway/dashboard/web'), { recursive: true });
    writeFileSync(join(bare, DASHBOARD_SCRIPT.source), 'const greeting = "hi";\nconsole.log(greeting);\n');
    const rebuilt = await loadBrowserScript(DASHBOARD_SCRIPT, { root: bare, compiled: true });
    expect(rebuilt.from).toBe('sources');
    expect(rebuilt.text).toContain('console.log("hi")');
  });
});
