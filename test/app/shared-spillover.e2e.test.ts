import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
 * A spilled-over result outliving its worker's disk: worker A runs a command whose output is over
 * the limit (spilled in A's HERMES_HOME and stored in PostgreSQL), then A stops and its home is
 * deleted; worker B, on an empty home of its own, serves the next message of the same chat and
 * reads the spill path with read_file. Real Redis and PostgreSQL, fake Telegram and model.
 */

const availability = await probePostgres();

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest) => (request.body as { messages?: Message[] }).messages ?? [];
const textOf = (message: Message | undefined) =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');

describe.skipIf(!availability.available)(
  `spilled-over results through PostgreSQL${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('a result spilled on one worker is read on another after the first is gone', async () => {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const model: FakeOpenAi = await startFakeOpenAi();
      cleanups.push(() => model.close());
      const fake: FakeTelegram = await startFakeTelegram();
      cleanups.push(() => fake.close());
      const shared = [
        'database:',
        `  schema: ${schema}`,
        'tools:',
        '  result_overrides:',
        '    terminal: 2000',
      ].join('\n');
      const dirs = telegramHome(`gateway:\n  allowed_users: ["telegram:${ANN.id}"]\n${shared}`);
      const env = {
        DATABASE_URL: TEST_DATABASE_URL,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
      };
      let spilledAt = '';
      model.respond = (request) => {
        const last = messagesOf(request).at(-1);
        const text = textOf(last);
        if (last?.role === 'tool') {
          const path = /It was saved in full to: (\S+)/.exec(text)?.[1];
          if (path !== undefined) {
            spilledAt = path;
            return { content: 'Spilled.' };
          }
          return { content: `Read: ${text}` };
        }
        if (text.includes('count')) {
          return {
            content: '',
            toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'seq 1 3000' }) }],
          };
        }
        const args = { path: spilledAt, limit: 1 };
        return { content: '', toolCalls: [{ name: 'read_file', arguments: JSON.stringify(args) }] };
      };
      const gateway: TestGateway = await startTestGateway({
        mode: 'bullmq',
        home: dirs.home,
        workdir: dirs.workdir,
        workers: false,
        env: { ...env, TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot },
      });
      cleanups.push(() => gateway.close());
      const startWorker = async (): Promise<TestGateway> => {
        const home = mkdtempSync(join(tmpdir(), 'hermes-spill-worker-'));
        writeFileSync(
          join(home, 'config.yaml'),
          ['http:', '  port: 0', 'redis:', `  prefix: ${dirs.redisPrefix}`, shared, ''].join('\n'),
        );
        const worker = await startTestGateway({
          mode: 'bullmq',
          role: 'worker',
          home,
          workdir: dirs.workdir,
          env: { ...env, TERMINAL_ENV: 'local' },
        });
        cleanups.push(() => worker.close());
        return worker;
      };

      const a = await startWorker();
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'count to 3000' });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.text.includes('Spilled.')), 30_000);
      expect(spilledAt.startsWith(join(a.home, 'cache', 'spillover'))).toBe(true);
      await a.close(); // stops it and deletes its home: that disk is gone
      expect(existsSync(spilledAt)).toBe(false);

      const b = await startWorker();
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'show me the end' });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.text.includes('Read:')), 30_000);
      const answer = fake.messages(ANN.id).find((m) => m.text.includes('Read:'))?.text ?? '';
      // The terminal's JSON result, one line: the first numbers of the output, fetched from the database.
      expect(answer).toMatch(/^Read: 1\|\{.*"1\\n2\\n3\\n4\\n5\\n/);
      expect(b.home).not.toBe(a.home);
    }, 90_000);
  },
);
