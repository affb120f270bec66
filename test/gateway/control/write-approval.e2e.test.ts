import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const ACCESS_YAML = 'gateway:\n  allowed_users: ["test:alice"]\n';
const ALIAS = 'alias ll="ls -l"\n';

/** The messages the fake model received in its n-th request. */
function sentMessages(fake: FakeOpenAi, n: number): { role: string; content: string }[] {
  const body = fake.requests[n]?.body as { messages?: { role: string; content: string }[] } | undefined;
  return body?.messages ?? [];
}

function writeCall(path: string, content: string) {
  return { content: '', toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path, content }) }] };
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'file writes through the approval gate, whole turn (%s)',
  (mode) => {
    let fake: FakeOpenAi;
    let gw: TestGateway | undefined;
    let adapter: TestAdapter;
    let userHome: string;
    let previousHome: string | undefined;

    beforeAll(async () => {
      fake = await startFakeOpenAi();
    });
    afterAll(async () => {
      await fake.close();
    });
    beforeEach(async () => {
      // The file tools find ~ through os.homedir(), which follows HOME.
      previousHome = process.env['HOME'];
      userHome = mkdtempSync(join(tmpdir(), 'hermes-write-home-'));
      process.env['HOME'] = userHome;
      adapter = createTestAdapter();
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml: ACCESS_YAML,
        adapters: [adapter],
      });
    });
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
      fake.reset();
      if (previousHome === undefined) delete process.env['HOME'];
      else process.env['HOME'] = previousHome;
      rmSync(userHome, { recursive: true, force: true });
    });

    it('shows a write_file ~/.bashrc prompt, and writes the file after "Allow once"', async () => {
      fake.script(writeCall('~/.bashrc', ALIAS), { content: 'Added the alias.' });
      await adapter.say({ ...ALICE, text: 'add an ll alias to my bashrc' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = adapter.prompts.at(-1);
      if (prompt === undefined) throw new Error('no prompt');
      expect(prompt.text).toContain('wants to write a file');
      expect(prompt.text).toContain('write_file ~/.bashrc: creates it with 17 bytes (sha256 ');
      expect(prompt.text).toContain('alias ll="ls -l"');
      expect(prompt.text).toContain('a shell start-up file (~/.bashrc)');
      expect(existsSync(join(userHome, '.bashrc'))).toBe(false);

      const answer = await adapter.press({
        messageId: prompt.messageId,
        userId: 'alice',
        userName: 'Alice',
        label: '✅ Allow once',
      });
      expect(answer).toMatchObject({ status: 'answered' });
      await waitFor(() => adapter.texts(ALICE.chatId).includes('Added the alias.'));
      expect(readFileSync(join(userHome, '.bashrc'), 'utf8')).toBe(ALIAS);
      // The prompt is edited when the decision is recorded, which may land after the answer.
      await waitFor(() => adapter.shown(prompt.messageId)?.text.includes('Allowed once by Alice') === true);
      const results = sentMessages(fake, 1).filter((m) => m.role === 'tool');
      expect(results.map((m) => m.content).join('\n')).toContain('Created');
    });

    it('refuses a write into HERMES_HOME without asking anyone, and writes nothing', async () => {
      const target = join(gw!.home, 'plugins', 'evil.mjs');
      fake.script(writeCall(target, 'export default () => {}\n'), { content: 'I could not do that.' });
      await adapter.say({ ...ALICE, text: 'install my plugin' });
      await waitFor(() => adapter.texts(ALICE.chatId).includes('I could not do that.'));
      expect(adapter.prompts).toHaveLength(0);
      expect(existsSync(join(gw!.home, 'plugins'))).toBe(false);
      const result = sentMessages(fake, 1).find((m) => m.role === 'tool')?.content ?? '';
      expect(result).toContain('Refusing to write');
    });
  },
);
