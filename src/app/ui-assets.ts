import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DASHBOARD_SCRIPT } from '../gateway/dashboard/bundle-dashboard.js';
import { dashboardPage } from '../gateway/dashboard/dashboard-page.js';
import { type BrowserScript, bundleBrowserScript, PREBUILT_UI_DIR } from '../lib/browser-script.js';
import { WEB_CHAT_SCRIPT } from '../platforms/web-chat/bundle-web-chat.js';
import { webChatPage } from '../platforms/web-chat/web-chat-page.js';

/** The scripts of the web pages (`/ui`, `/ui/chat`), bundled by the build step. */
export const BROWSER_SCRIPTS: readonly BrowserScript[] = [DASHBOARD_SCRIPT, WEB_CHAT_SCRIPT];

export interface UiAssetSize {
  /** `dashboard.js`, or a page: `/ui`, `/ui/chat`. */
  readonly name: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

function sizeOf(name: string, text: string): UiAssetSize {
  return { name, bytes: Buffer.byteLength(text), gzipBytes: gzipSync(text, { level: 9 }).length };
}

/**
 * Bundles every page script from the sources under `root` into `dist/ui/` (the build step,
 * `npm install` / `npm run build`), and measures what a browser downloads: each script and page.
 */
export async function buildUiAssets(
  root: string,
  out: string = join(root, PREBUILT_UI_DIR),
): Promise<UiAssetSize[]> {
  mkdirSync(out, { recursive: true });
  const sizes: UiAssetSize[] = [];
  for (const script of BROWSER_SCRIPTS) {
    const text = await bundleBrowserScript(root, script);
    writeFileSync(join(out, script.name), text);
    sizes.push(sizeOf(script.name, text));
  }
  sizes.push(sizeOf('/ui', dashboardPage()), sizeOf('/ui/chat', webChatPage({ keyRequired: true })));
  return sizes;
}

/** One line for the build output: `dashboard.js 7.1 KB (2.6 KB gzip), …`. */
export function describeUiSizes(sizes: readonly UiAssetSize[]): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return sizes
    .map(
      (size) =>
        `${size.name} ${size.bytes} B = ${kb(size.bytes)} (${size.gzipBytes} B = ${kb(size.gzipBytes)} gzip)`,
    )
    .join(', ');
}
