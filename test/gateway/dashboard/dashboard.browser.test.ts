import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';
import { runsApi } from '../e2e/runs-kit.js';

const CHROMIUM = '/usr/bin/chromium';
const KEY = 'k-dashboard-browser-0123456789';
const TOKEN = 'dashboard-browser-token-0123456789';
const ARTIFACTS = resolve(import.meta.dirname, '../../../test-artifacts');

describe.skipIf(!existsSync(CHROMIUM))('the operator dashboard in a real browser (headless Chromium)', () => {
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

  it('signs in with the token, approves a parked command once, and the turn finishes', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
        API_SERVER_KEY: KEY,
        HERMES_DASHBOARD_TOKEN: TOKEN,
      },
      yaml: 'terminal:\n  unattended_backend: local',
    });
    mkdirSync(join(gw.workdir, 'build'));
    fake.script(
      {
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf build' }) }],
      },
      { content: 'Removed the build folder.' },
    );
    const runs = runsApi(gw.baseURL, KEY);
    const runId = String(
      (await runs.call('POST', '/runs', { input: 'remove build', attended: true })).body['id'],
    );

    profile = mkdtempSync(join(tmpdir(), 'hermes-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
      ],
      viewport: { width: 390, height: 844 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${gw.baseURL.replace(/\/v1$/, '')}/ui`);
    // The token is asked in the page (a labelled field), by keyboard.
    const token = page.getByLabel('Dashboard token');
    await token.waitFor({ timeout: 15_000 });
    await token.fill(TOKEN);
    await token.press('Enter');

    const approve = page.getByRole('button', { name: 'Approve once' });
    await approve.waitFor({ timeout: 15_000 });
    await expect(page.getByText('rm -rf build', { exact: true }).isVisible()).resolves.toBe(true);
    await page.getByText('Waiting for approval').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-approval.png'), fullPage: true });
    await approve.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Approved once.').waitFor({ timeout: 15_000 });
    await waitFor(async () => (await runs.call('GET', `/runs/${runId}`)).body['status'] === 'done');
    expect(existsSync(join(gw.workdir, 'build'))).toBe(false);
    await page.getByText('None.').waitFor({ timeout: 15_000 });
    await page.getByText('Idle').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-after.png'), fullPage: true });
    // The session's transcript, tool calls folded.
    await page.getByRole('button', { name: /^Transcript of api_server/ }).click();
    const call = page.getByText('Tool call: terminal');
    await call.waitFor({ timeout: 15_000 });
    await expect(page.getByText('rm -rf build', { exact: false }).first().isVisible()).resolves.toBe(false);
    await call.click();
    await page.getByText('Agent: Removed the build folder.').waitFor({ timeout: 15_000 });
    await page.locator('#transcript-box').screenshot({ path: join(ARTIFACTS, 'dashboard-transcript.png') });

    // Rates and percentiles: two turns ended (parked, then answered) within the last minute.
    const lastMinute = page.getByRole('row', { name: /^1 minute/ });
    await expect(lastMinute.getByRole('cell').first().textContent()).resolves.toBe('2.0');
    await expect(lastMinute.getByRole('cell').nth(1).textContent()).resolves.toMatch(/^\d+\.\d\d\u00a0s$/);
    // A failed turn appears under recent failures, with its code.
    await page.getByText('No failed turns.').waitFor({ timeout: 15_000 });
    fake.script({ status: 400, error: 'the model refuses this request' });
    const failing = String((await runs.call('POST', '/runs', { input: 'fail please' })).body['id']);
    await waitFor(async () => (await runs.call('GET', `/runs/${failing}`)).body['status'] === 'failed');
    await page.getByText(/^Failed turns, most recent first \(1\)$/).waitFor({ timeout: 15_000 });
    const failure = page.locator('#failures tr').first();
    await expect(failure.textContent()).resolves.toContain('api_server');
    await page.getByText('No deliveries given up on.').waitFor({ timeout: 15_000 });
    await page.locator('#transcript-close').click();
    await page
      .locator('section', { has: page.locator('#h-queue') })
      .screenshot({ path: join(ARTIFACTS, 'dashboard-rates.png') });
    await page
      .locator('section', { has: page.locator('#h-failures') })
      .screenshot({ path: join(ARTIFACTS, 'dashboard-failures.png') });
  }, 60_000);
});
