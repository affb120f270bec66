import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, type RecordedRequest, startFakeOpenAi } from '../../fakes/fake-openai.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../../helpers/pg-test-database.js';
import { REDIS_URL, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

/*
 * The scale-out topology: one gateway process receiving platform traffic (the in-memory test
 * platform), worker processes started as an operator would (`hermes-gateway worker`), each with
 * its own empty HERMES_HOME (machines that share no disk), real Redis for the queue and real
 * PostgreSQL for the state. Every worker answers with its own API key, so the fake model tells
 * which worker ran which turn.
 */

/*
 * Several worker processes and hundreds of turns take minutes on a small machine, beyond the
 * budget of `npm test`: the test runs under `npm run test:topology` (HERMES_TOPOLOGY=1, 200
 * sessions), which .ci/run runs after `npm test`.
 */
const enabled = process.env['HERMES_TOPOLOGY'] === '1';
const availability = enabled
  ? await probePostgres()
  : { available: false, reason: 'runs under `npm run test:topology` (HERMES_TOPOLOGY=1)' };
const BIN = resolve(import.meta.dirname, '../../../bin/hermes-gateway');
/** 200 with `npm run test:topology`; a smaller run in `npm test` keeps it within its time budget. */
const SESSIONS = Number(process.env['HERMES_TOPOLOGY_SESSIONS'] ?? 24);
const MESSAGES_PER_SESSION = 2;

interface Worker {
  readonly name: string;
  readonly home: string;
  readonly child: ChildProcess;
  stderr: string;
}

function lastUserText(request: RecordedRequest): string {
  const body = request.body as { messages?: { role: string; content: unknown }[] };
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe.skipIf(!availability.available)(
  `scale-out topology: gateway + worker processes on Redis and PostgreSQL, no shared disk${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const workers: Worker[] = [];
    const schema = testSchemaName();
    let fake: FakeOpenAi | undefined;
    let gw: TestGateway | undefined;

    afterAll(async () => {
      for (const worker of workers) {
        if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
        rmSync(worker.home, { recursive: true, force: true });
      }
      await gw?.close();
      await fake?.close();
      await dropSchemas([schema]);
    });

    function startWorker(name: string, prefix: string): Worker {
      // An empty home: only the config every machine of the deployment is given.
      const home = mkdtempSync(join(tmpdir(), `hermes-topology-${name}-`));
      writeFileSync(
        join(home, 'config.yaml'),
        [
          'redis:',
          `  prefix: ${prefix}`,
          'database:',
          `  schema: ${schema}`,
          'queue:',
          '  lock_duration_ms: 2000',
          '  stalled_interval_ms: 1000',
          '  concurrency: 8',
        ].join('\n'),
      );
      const child = spawn(BIN, ['worker'], {
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: home,
          HERMES_HOME: home,
          REDIS_URL,
          DATABASE_URL: TEST_DATABASE_URL,
          TERMINAL_CWD: home,
          OPENAI_BASE_URL: fake?.baseURL ?? '',
          OPENAI_API_KEY: `sk-${name}-0123456789abcdef`,
          HERMES_MODEL: 'fake-model',
          HERMES_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const worker: Worker = { name, home, child, stderr: '' };
      child.stderr?.on('data', (chunk: Buffer) => {
        worker.stderr += chunk.toString();
      });
      workers.push(worker);
      return worker;
    }

    const workerOf = (request: RecordedRequest) =>
      /sk-(w\d+)-/.exec(String(request.headers.authorization ?? ''))?.[1] ?? 'unknown';

    it('any worker serves any session, in order and exactly once; an approval outlives its worker', async () => {
      fake = await startFakeOpenAi();
      // Default answer: echo the last user message, so order and duplicates can be checked.
      fake.respond = (request) => ({ content: `echo: ${lastUserText(request)}` });
      const adapter: TestAdapter = createTestAdapter();
      gw = await startTestGateway({
        mode: 'bullmq',
        env: {
          DATABASE_URL: TEST_DATABASE_URL,
          OPENAI_BASE_URL: fake.baseURL,
          HERMES_MODEL: 'fake-model',
          OPENAI_API_KEY: 'sk-gateway-0123456789',
        },
        yaml: ['database:', `  schema: ${schema}`, 'gateway:', '  allow_all: true'].join('\n'),
        adapters: [adapter],
        workers: false,
      });
      expect(gw.gateway.storeKind).toBe('postgres');
      const prefix = gw.prefix;

      // 1. An approval parked by worker w0, which then dies; the click resumes it elsewhere.
      const w0 = startWorker('w0', prefix);
      fake.script({
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf build' }) }],
      });
      await adapter.say({ chatId: 'c-approval', userId: 'alice', text: 'remove build' });
      await waitFor(() => adapter.prompts.length === 1, 90_000).catch(() => {
        throw new Error(`no approval prompt; w0 stderr:\n${w0.stderr}`);
      });
      expect(fake.requests.map(workerOf)).toEqual(['w0']);
      w0.child.kill('SIGKILL');
      await new Promise((r) => w0.child.once('exit', r));
      for (let i = 1; i <= 4; i += 1) startWorker(`w${i}`, prefix);
      const prompt = adapter.prompts[0];
      const pressed = await adapter.press({
        messageId: prompt?.messageId ?? '',
        userId: 'alice',
        label: '❌ Deny',
      });
      expect(pressed).toMatchObject({ status: 'answered' });
      await waitFor(
        () => adapter.texts('c-approval').some((t: string) => t.startsWith('echo:')),
        90_000,
      ).catch(() => {
        throw new Error(
          `approval not resumed; stderr:\n${workers.map((w) => `${w.name}: ${w.stderr}`).join('\n')}`,
        );
      });
      expect(
        fake.requests
          .slice(1)
          .map(workerOf)
          .every((w) => w !== 'w0' && w !== 'unknown'),
      ).toBe(true);

      // 2. 200 sessions, two messages each, over the four live workers.
      const before = fake.requests.length;
      const started = Date.now();
      // Sessions run side by side; within one, the next message follows the previous answer.
      await Promise.all(
        Array.from({ length: SESSIONS }, async (_, s) => {
          for (let m = 0; m < MESSAGES_PER_SESSION; m += 1) {
            await adapter.say({ chatId: `c${s}`, userId: `u${s}`, text: `s${s} m${m}` });
            await waitFor(
              () => adapter.texts(`c${s}`).filter((t) => t.startsWith('echo:')).length > m,
              240_000,
            ).catch(() => {
              const done = Array.from({ length: SESSIONS }).filter(
                (_, i) =>
                  adapter.texts(`c${i}`).filter((t) => t.startsWith('echo:')).length >= MESSAGES_PER_SESSION,
              ).length;
              throw new Error(
                `session ${s} message ${m} unanswered; ${done}/${SESSIONS} sessions done; texts ${JSON.stringify(adapter.texts(`c${s}`))}; model requests ${fake?.requests.length}; stderr:\n${workers.map((w) => `${w.name}: ${w.stderr.slice(-2000)}`).join('\n')}`,
              );
            });
          }
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      for (let s = 0; s < SESSIONS; s += 1) {
        // Exactly one answer per message, in arrival order (a "got it, after the current task"
        // notice may come between when the next message arrives before the turn has let go).
        const answers = adapter.texts(`c${s}`).filter((text) => text.startsWith('echo:'));
        expect(answers, `session ${s}`).toEqual([`echo: s${s} m0`, `echo: s${s} m1`]);
      }
      const served = new Map<string, number>();
      for (const request of fake.requests.slice(before))
        served.set(workerOf(request), (served.get(workerOf(request)) ?? 0) + 1);
      expect([...served.keys()].sort()).toEqual(['w1', 'w2', 'w3', 'w4']);
      // The workers' homes hold their config only: the state is in PostgreSQL and Redis.
      for (const worker of workers.slice(1)) {
        expect(readdirSync(worker.home).filter((f) => f.endsWith('.db') || f === 'memories')).toEqual([]);
      }
      const store = gw.gateway.store;
      expect((await store.listSessions({ limit: 1000 })).length).toBe(SESSIONS + 1);
      console.info(
        `topology: ${SESSIONS * MESSAGES_PER_SESSION} turns in ${seconds.toFixed(1)} s over 4 workers`,
        Object.fromEntries(served),
      );
    }, 600_000);
  },
);
