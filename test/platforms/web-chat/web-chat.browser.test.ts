import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { startTestGateway, type TestGateway } from '../../gateway/e2e/gateway-kit.js';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the pages, kept as test artifacts (CI uploads the folder). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../../test-artifacts');

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.skipIf(!existsSync(CHROMIUM))('the web chat in a real browser (headless Chromium)', () => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    await gw?.close();
    gw = undefined;
    fake.reset();
  });

  async function open(): Promise<{ page: Page; gateway: TestGateway }> {
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
      },
      yaml: 'terminal:\n  unattended_backend: local',
    });
    profile = mkdtempSync(join(tmpdir(), 'hermes-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 390, height: 844 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${gw.baseURL.replace(/\/v1$/, '')}/ui/chat`);
    return { page, gateway: gw };
  }

  it('chats a turn with an approval click and a clarify choice', async () => {
    const { page, gateway } = await open();
    mkdirSync(join(gateway.workdir, 'build'));
    fake.script(
      terminalCall('rm -rf build'),
      {
        content: '',
        toolCalls: [
          {
            name: 'clarify',
            arguments: JSON.stringify({ question: 'Which branch?', choices: ['main', 'dev'] }),
          },
        ],
      },
      { content: 'Cleaned up, and using dev.' },
    );
    await page.getByLabel('Message').fill('clean up the build');
    await page.getByRole('button', { name: 'Send' }).click();
    const allow = page.getByRole('button', { name: 'Allow once' });
    await allow.waitFor({ timeout: 15_000 });
    await expect(page.getByText('rm -rf build', { exact: true }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'web-chat-approval.png'), fullPage: true });
    await allow.click();
    const dev = page.getByRole('button', { name: 'dev', exact: true });
    await dev.waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'web-chat-clarify.png'), fullPage: true });
    await dev.click();
    await page.getByText('Cleaned up, and using dev.').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'web-chat-done.png'), fullPage: true });
    expect(existsSync(join(gateway.workdir, 'build'))).toBe(false);
    await expect(page.locator('#status').textContent()).resolves.toBe('Ready');
  }, 60_000);

  it('picks the stream up again after a reload in the middle of a run', async () => {
    const { page, gateway } = await open();
    mkdirSync(join(gateway.workdir, 'keep'));
    fake.script(terminalCall('rm -rf keep'), { content: 'Left it in place.' });
    await page.getByLabel('Message').fill('remove keep');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Deny' }).waitFor({ timeout: 15_000 });
    await page.reload();
    // The run is replayed from its first event: the question is there again, and still open.
    const deny = page.getByRole('button', { name: 'Deny' });
    await deny.waitFor({ timeout: 15_000 });
    await expect(page.getByText('remove keep').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'web-chat-after-reload.png'), fullPage: true });
    await deny.click();
    await page.getByText('Left it in place.').waitFor({ timeout: 15_000 });
    expect(existsSync(join(gateway.workdir, 'keep'))).toBe(true);
  }, 60_000);
});
