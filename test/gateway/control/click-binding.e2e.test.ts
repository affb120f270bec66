import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ACCESS_YAML = [
  'gateway:',
  '  allowed_users: ["test:alice", "test:carol"]',
  '  admin_users: ["test:admin"]',
].join('\n');
const OPEN_YAML = ['gateway:', '  allow_all: true'].join('\n');

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'an approval is decided only in the chat and thread it was asked in (%s)',
  (mode) => {
    let fake: FakeOpenAi;
    let gw: TestGateway | undefined;
    let adapter: TestAdapter;

    beforeAll(async () => {
      fake = await startFakeOpenAi();
    });
    afterAll(async () => {
      await fake.close();
    });
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
      fake.reset();
    });

    async function start(yaml: string): Promise<TestGateway> {
      adapter = createTestAdapter();
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml,
        adapters: [adapter],
      });
      mkdirSync(join(gw.workdir, 'build'));
      return gw;
    }

    /** Asks for `rm -rf build` from `where` and returns the prompt shown there. */
    async function askForRemoval(where: { chatId: string; threadId?: string; chatType?: 'dm' | 'group' }) {
      fake.script(terminalCall('rm -rf build'), { content: 'Finished.' });
      await adapter.say({ ...where, userId: 'alice', userName: 'Alice', text: 'remove build' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = adapter.prompts[0]!;
      return { prompt, allowOnce: prompt.prompt.choices[0]?.data ?? '' };
    }

    async function pendingCount(): Promise<number> {
      const open = await gw!.gateway.store.listActionPrompts({ pendingOnly: true });
      return open.filter((p) => p.kind === 'approval').length;
    }

    it('refuses the requester’s and an admin’s click sent from another chat, and changes nothing', async () => {
      await start(ACCESS_YAML);
      const { prompt, allowOnce } = await askForRemoval({ chatId: 'c-alice' });
      for (const [chatId, userId] of [
        ['c-elsewhere', 'alice'],
        ['c-admin', 'admin'],
      ] as const) {
        const answer = await adapter.inject(
          adapter.action({ chatId, userId, messageId: prompt.messageId, data: allowOnce }),
        );
        expect(answer).toMatchObject({ status: 'answered', notice: expect.stringMatching(/another chat/i) });
      }
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      expect(adapter.shown(prompt.messageId)?.choices).toHaveLength(4);
      expect(await pendingCount()).toBe(1);
      expect(fake.requests).toHaveLength(1);
      // Still open, so the requester can decide it where it was asked.
      const own = await adapter.press({ messageId: prompt.messageId, userId: 'alice', label: '❌ Deny' });
      expect(own).toMatchObject({ status: 'answered', notice: 'Done: denied.' });
      await waitFor(() => adapter.texts('c-alice').includes('Finished.'));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
    });

    it('refuses a click from another thread of the same chat, or from outside the thread', async () => {
      await start(ACCESS_YAML);
      const { prompt, allowOnce } = await askForRemoval({
        chatId: 'g-team',
        chatType: 'group',
        threadId: 't-1',
      });
      expect(prompt.to).toMatchObject({ chatId: 'g-team', threadId: 't-1' });
      for (const threadId of ['t-2', undefined]) {
        const answer = await adapter.inject(
          adapter.action({
            chatId: 'g-team',
            chatType: 'group',
            ...(threadId === undefined ? {} : { threadId }),
            userId: 'alice',
            messageId: prompt.messageId,
            data: allowOnce,
          }),
        );
        expect(answer).toMatchObject({
          status: 'answered',
          notice: expect.stringMatching(/another chat or thread/i),
        });
      }
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      expect(await pendingCount()).toBe(1);
      const inThread = await adapter.press({
        messageId: prompt.messageId,
        userId: 'alice',
        label: '✅ Allow once',
      });
      expect(inThread).toMatchObject({ status: 'answered', notice: 'Done: allowed once.' });
      await waitFor(() => !existsSync(join(gw!.workdir, 'build')));
    });

    it('refuses a click and an /approve that name no user, even where everyone may talk', async () => {
      await start(OPEN_YAML);
      const { prompt, allowOnce } = await askForRemoval({ chatId: 'c-alice' });
      // An empty id is turned away at the door; a blank one gets as far as the decision.
      const empty = await adapter.inject(
        adapter.action({ chatId: 'c-alice', userId: '', messageId: prompt.messageId, data: allowOnce }),
      );
      expect(empty.status).toBe('rejected');
      const blank = await adapter.inject(
        adapter.action({ chatId: 'c-alice', userId: ' ', messageId: prompt.messageId, data: allowOnce }),
      );
      expect(blank).toMatchObject({ status: 'answered', notice: expect.stringMatching(/does not say who/i) });
      await adapter.say({ chatId: 'c-alice', userId: ' ', text: '/approve' });
      await waitFor(() => adapter.texts('c-alice').some((t) => /does not say who/i.test(t)));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      expect(await pendingCount()).toBe(1);
      expect(fake.requests).toHaveLength(1);
    });
  },
);
