import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { spawnCliWorker, startTestGateway, type TestGateway } from './gateway-kit.js';

const CONVERSATIONS = 8;
/** Each conversation sends at least this many messages, and goes on until enough kills happened. */
const MIN_MESSAGES = 12;
const MAX_MESSAGES = 80;
const MIN_KILLS = 4;
const WORKERS = 3;
const KILL_EVERY_MS = 1200;

/**
 * Worker processes SIGKILLed at random while conversations run through them: every turn a BullMQ
 * job (the gateway in this process runs no workers), or local-first with the overflow as jobs.
 * Whatever dies when, every request must get its own answer, each transcript must hold every
 * message and every answer once and in order, and a command may run a second time only when the
 * process that ran it first was killed (finished, but its result not yet written; see
 * docs/agent-loop.md#crash-safety).
 */
describe.each([
  { mode: 'every turn a job', localFirst: false },
  { mode: 'local-first, the gateway running turns too', localFirst: true },
])('worker processes killed at random under load (BullMQ, $mode)', ({ localFirst }) => {
  let fake: FakeOpenAi | undefined;
  let gw: TestGateway | undefined;
  const children = new Set<ChildProcess>();

  afterEach(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children.clear();
    await gw?.close();
    await fake?.close();
  });

  it('loses and doubles no message, and re-runs a command only after its process died', async () => {
    fake = await startFakeOpenAi();
    // A new turn: run a command that logs its request token and the worker's pid; after the
    // result: answer with the token. The delay keeps turns in flight when the kills land.
    fake.respond = (request) => {
      const messages = request.body['messages'] as { role: string; content: unknown }[];
      const lastUser = [...messages].reverse().find((m) => m.role === 'user');
      const token = /req-\d+-\d+/.exec(String(lastUser?.content ?? ''))?.[0] ?? 'none';
      if (messages.at(-1)?.role === 'tool') return { content: `done ${token}`, delayMs: 15 };
      return {
        content: '',
        toolCalls: [
          { name: 'terminal', arguments: JSON.stringify({ command: `echo ${token} $PPID >> runs.log` }) },
        ],
        delayMs: 15,
      };
    };
    const env = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'sk-test-0123456789abc',
      HERMES_MODEL: 'fake-model',
    };
    gw = await startTestGateway({
      mode: 'bullmq',
      env,
      // Local-first: this process runs turns while it has free slots; the rest go to the workers.
      workers: localFirst,
      // The test follows commands by their host pid ($$): they run unsandboxed (the sandbox's own
      // process handling is covered by test/tools/terminal/backend-conformance.test.ts).
      yaml: [
        '  concurrency: 4',
        '  max_attempts: 10',
        `  local_first: ${localFirst}`,
        'terminal:',
        '  unattended_backend: local',
      ].join('\n'),
    });
    const testGateway = gw;

    const killed = new Set<number>();
    let stderr = '';
    const startWorker = () => {
      const child = spawnCliWorker(testGateway, {
        env,
        logLevel: 'error',
        onStderr: (text) => {
          stderr += text;
        },
      });
      children.add(child);
      return child;
    };
    const live: ChildProcess[] = Array.from({ length: WORKERS }, startWorker);
    let done = false;
    const killer = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
        if (done) break;
        // Only a worker that is running turns (it has run a command) is worth killing.
        const working = new Set(readRuns(testGateway.workdir).map((run) => run.pid));
        const candidates = live.filter((child) => child.pid !== undefined && working.has(child.pid));
        const victim = candidates[Math.floor(Math.random() * candidates.length)];
        if (victim?.pid === undefined) continue;
        live.splice(live.indexOf(victim), 1);
        killed.add(victim.pid);
        victim.kill('SIGKILL');
        live.push(startWorker());
      }
    })();

    const client = (conversation: number) =>
      testGateway.client({ headers: { 'X-Hermes-Session-Id': `chaos-${conversation}` } });
    const answers = new Map<string, string>();
    const sent: number[] = Array.from({ length: CONVERSATIONS }, () => 0);
    try {
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, c) => {
          const openai = client(c);
          for (let n = 0; n < MAX_MESSAGES && (n < MIN_MESSAGES || killed.size < MIN_KILLS); n += 1) {
            const token = `req-${c}-${n}`;
            const completion = await openai.chat.completions.create({
              model: 'fake-model',
              messages: [{ role: 'user', content: `please ${token}` }],
            });
            answers.set(token, completion.choices[0]?.message.content ?? '');
            sent[c] = n + 1;
          }
        }),
      );
    } catch (error) {
      throw new Error(`a request failed: ${String(error)}\nworker stderr:\n${stderr.slice(-4000)}`);
    } finally {
      done = true;
      await killer;
    }
    expect(killed.size).toBeGreaterThanOrEqual(MIN_KILLS);

    // Every request got its own answer.
    for (let c = 0; c < CONVERSATIONS; c += 1) {
      for (let n = 0; n < (sent[c] ?? 0); n += 1) {
        expect(answers.get(`req-${c}-${n}`)).toBe(`done req-${c}-${n}`);
      }
    }

    // Every transcript holds each message, each command result and each answer once, in order.
    const store = testGateway.gateway.store;
    for (let c = 0; c < CONVERSATIONS; c += 1) {
      const chatId = `conv-${createHash('sha256').update(`chaos-${c}`).digest('hex').slice(0, 32)}`;
      const session = await store.getSession(`agent:main:api_server:dm:${chatId}`);
      expect(session, `conversation ${c}`).toBeDefined();
      const messages = await store.listMessages(session?.sessionId ?? '', { limit: 1000 });
      const tokens = Array.from({ length: sent[c] ?? 0 }, (_, n) => `req-${c}-${n}`);
      expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
        tokens.map((t) => `please ${t}`),
      );
      expect(messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content)).toEqual(
        tokens.map((t) => `done ${t}`),
      );
      expect(messages.filter((m) => m.role === 'tool')).toHaveLength(tokens.length);
    }

    // Every command ran; a second run only where the first run's process was killed.
    const runs = readRuns(testGateway.workdir);
    const pidsByToken = new Map<string, number[]>();
    for (const { token, pid } of runs) pidsByToken.set(token, [...(pidsByToken.get(token) ?? []), pid]);
    expect(pidsByToken.size).toBe(answers.size);
    // $PPID is 1 when the worker was killed between spawning the shell and the shell starting.
    const died = new Set([...killed, 1]);
    for (const [token, pids] of pidsByToken) {
      for (const pid of pids.slice(0, -1)) expect(died, `${token} ran again after pid ${pid}`).toContain(pid);
    }
  }, 180_000);
});

/** The commands' log: one `<token> <worker pid>` line per run. */
function readRuns(workdir: string): { token: string; pid: number }[] {
  const path = join(workdir, 'runs.log');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [token, pid] = line.split(' ');
      return { token: token ?? '', pid: Number(pid) };
    });
}
