import { type BrowserScript, loadBrowserScript } from '../../lib/browser-script.js';

/** The operator dashboard's script (no CDN: served by the gateway). */
export const DASHBOARD_SCRIPT: BrowserScript = {
  name: 'dashboard.js',
  source: 'src/gateway/dashboard/web/dashboard.js',
};

/** The dashboard's script: bundled at build time (`dist/ui/dashboard.js`), or now when running from the sources. */
export async function bundleDashboard(): Promise<string> {
  return (await loadBrowserScript(DASHBOARD_SCRIPT)).text;
}
