import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A script of the gateway's web pages: its file name under /ui, and its entry in the checkout. */
export interface BrowserScript {
  /** File name in `dist/ui/` (`dashboard.js`). */
  readonly name: string;
  /** The entry module, relative to the package root (`src/gateway/dashboard/web/dashboard.js`). */
  readonly source: string;
}

/** Where the build step (`scripts/build.mjs`) writes the bundled scripts, under the package root. */
export const PREBUILT_UI_DIR = join('dist', 'ui');

/**
 * The package root, and whether this code runs compiled (`dist/src/lib/…`) or from the sources
 * (`src/lib/…`, through tsx).
 */
export function packageLayout(moduleUrl: string = import.meta.url): { root: string; compiled: boolean } {
  const lib = dirname(fileURLToPath(moduleUrl));
  const src = dirname(lib);
  const compiled = basename(dirname(src)) === 'dist';
  return { root: compiled ? dirname(dirname(src)) : dirname(src), compiled };
}

/** Bundles and minifies a script from its entry, with no network: everything comes from the checkout. */
export async function bundleBrowserScript(root: string, script: BrowserScript): Promise<string> {
  // Loaded only here: a compiled gateway serving the built files never starts esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(root, script.source)],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * A page's script: compiled runs serve the file the build step bundled (`dist/ui/<name>`, made
 * with the compiled code, so never stale); runs from the sources bundle it on demand (their
 * source may have changed since any build). A compiled run whose bundle is missing bundles it
 * too, when the sources are there.
 */
export async function loadBrowserScript(
  script: BrowserScript,
  layout: { root: string; compiled: boolean } = packageLayout(),
): Promise<{ text: string; from: 'build' | 'sources' }> {
  const prebuilt = join(layout.root, PREBUILT_UI_DIR, script.name);
  if (layout.compiled && existsSync(prebuilt)) {
    return { text: await readFile(prebuilt, 'utf8'), from: 'build' };
  }
  return { text: await bundleBrowserScript(layout.root, script), from: 'sources' };
}
