import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedCopyPath } from '../../src/lib/shared-files.js';
import { type FakeOpenAi, type RecordedRequest, startFakeOpenAi } from '../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram.js';
import { startTestGateway, type TestGateway, waitFor } from '../gateway/e2e/gateway-kit.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../helpers/pg-test-database.js';
import { telegramHome } from '../platforms/telegram/telegram-gateway-kit.js';
import { ANN } from '../platforms/telegram/telegram-kit.js';

/*
 * A chat attachment on a deployment without a shared disk: the gateway (Telegram built from its
 * config, no workers of its own) receives a document; the turn runs on a worker with an empty
 * HERMES_HOME of its own, whose read_file opens the path the message names. Real Redis, real
 * PostgreSQL, fake Telegram and fake model.
 */

const availability = await probePostgres();

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest) => (request.body as { messages?: Message[] }).messages ?? [];

describe.skipIf(!availability.available)(
  `chat attachments through PostgreSQL${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('a document received by the gateway is read by a worker on another home', async () => {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const model: FakeOpenAi = await startFakeOpenAi();
      cleanups.push(() => model.close());
      const fake: FakeTelegram = await startFakeTelegram();
      cleanups.push(() => fake.close());
      const shared = [`database:`, `  schema: ${schema}`].join('\n');
      const dirs = telegramHome(`gateway:\n  allowed_users: ["telegram:${ANN.id}"]\n${shared}`);
      cleanups.push(() => rmSync(dirs.workdir, { recursive: true, force: true }));
      const env = {
        DATABASE_URL: TEST_DATABASE_URL,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
      };
      let savedAt = '';
      model.respond = (request) => {
        const last = messagesOf(request).at(-1);
        const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
        if (last?.role === 'tool') return { content: `The file says: ${text}` };
        const path = /\[file saved at (\S+)\]/.exec(text)?.[1];
        if (path === undefined) return { content: 'no file' };
        // Machines that share no disk: the gateway's copy is out of the worker's reach.
        savedAt = path;
        rmSync(path);
        return { content: '', toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path }) }] };
      };
      const gateway: TestGateway = await startTestGateway({
        mode: 'bullmq',
        home: dirs.home,
        workdir: dirs.workdir,
        workers: false,
        env: { ...env, TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot },
      });
      cleanups.push(() => gateway.close());

      // The worker: another machine, an empty home with only the deployment's config.
      const workerHome = mkdtempSync(join(tmpdir(), 'hermes-shared-worker-'));
      writeFileSync(
        join(workerHome, 'config.yaml'),
        ['http:', '  port: 0', 'redis:', `  prefix: ${dirs.redisPrefix}`, shared, ''].join('\n'),
      );
      const worker = await startTestGateway({ mode: 'bullmq', role: 'worker', home: workerHome, env });
      cleanups.push(() => worker.close());

      const { fileId } = fake.addFile(Buffer.from('name,amount\nalice,3\n'), 'documents/file_7.csv');
      fake.sendText({
        chatId: ANN.id,
        from: ANN,
        text: 'sum this',
        document: { fileId, fileName: 'sums.csv' },
      });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.text.includes('The file says')), 30_000);
      const answer = fake.messages(ANN.id).find((m) => m.text.includes('The file says'))?.text ?? '';
      expect(answer).toContain('1|name,amount');
      expect(answer).toContain('2|alice,3');
      // The gateway saved it in its inbox; the worker read a copy it fetched into its own home.
      expect(savedAt.startsWith(join(dirs.home, 'inbox', 'telegram'))).toBe(true);
      expect(existsSync(savedAt)).toBe(false);
      expect(readFileSync(sharedCopyPath(workerHome, savedAt), 'utf8')).toBe('name,amount\nalice,3\n');
    }, 60_000);
  },
);
