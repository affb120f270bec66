import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { isLiveProcess } from '../../helpers/live-processes.js';
import { spawnCliWorker, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

/** The environment pointing a gateway and its worker processes at the fake model. */
const modelEnv = (fake: FakeOpenAi) => ({
  OPENAI_BASE_URL: fake.baseURL,
  OPENAI_API_KEY: 'sk-test-0123456789abc',
  HERMES_MODEL: 'fake-model',
});

describe('a worker killed mid-turn (BullMQ)', () => {
  let fake: FakeOpenAi | undefined;
  let gw: TestGateway | undefined;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await gw?.close();
    await fake?.close();
  });

  it('is finished by another worker with exactly one answer and no tool run twice', async () => {
    fake = await startFakeOpenAi();
    fake.script(
      {
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'echo ran >> marker.txt' }) }],
      },
      { hang: true },
      { content: 'Finished after recovery.' },
    );
    const env = modelEnv(fake);
    // The gateway in this process serves HTTP but runs no workers yet.
    gw = await startTestGateway({ mode: 'bullmq', env, workers: false });
    const testGateway = gw;
    // A separate worker process, started the way an operator would: `hermes-gateway worker`.
    let childErrors = '';
    child = spawnCliWorker(testGateway, {
      env,
      logLevel: 'warn',
      onStderr: (text) => {
        childErrors += text;
      },
    });

    const answer = testGateway.client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'run the marker command' }],
    });
    // Awaited below; if a step before fails, the gateway's close rejects it: not an unhandled error.
    answer.catch(() => {});

    // The child ran the tool, persisted its result, and is now waiting on the model: kill it.
    await waitFor(() => (fake?.requests.length ?? 0) >= 2, 90_000).catch(() => {
      throw new Error(`the worker never reached the second model call; its stderr:\n${childErrors}`);
    });
    expect(readFileSync(join(testGateway.workdir, 'marker.txt'), 'utf8')).toBe('ran\n');
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));

    // Another worker takes over once the dead worker's lock expires.
    await testGateway.gateway.startWorkers();
    const completion = await answer;
    expect(completion.choices[0]?.message.content).toBe('Finished after recovery.');
    expect(readFileSync(join(testGateway.workdir, 'marker.txt'), 'utf8')).toBe('ran\n');
    expect(fake.requests).toHaveLength(3);
    const retried = fake.requests[2]?.body as { messages: { role: string; tool_call_id?: string }[] };
    expect(retried.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
  }, 150_000);

  it.skipIf(!existsSync('/proc/self/stat'))(
    'kills a command its dead worker left running, before the retry runs it again',
    async () => {
      fake = await startFakeOpenAi();
      // First run: note the shell's pid and sleep; a second run (the retry) finishes at once.
      const command =
        'if [ -f started.txt ]; then echo second run; else echo $$ > started.txt; sleep 60; echo finished > marker.txt; fi';
      fake.script(
        { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] },
        { content: 'Done after the retry.' },
      );
      const env = modelEnv(fake);
      // This process runs no workers yet, but like every gateway process it sweeps for commands
      // whose process died.
      // The test follows the command by its host pid ($$): it runs unsandboxed (the sandbox's own
      // process handling is covered by test/tools/terminal/backend-conformance.test.ts).
      gw = await startTestGateway({
        mode: 'bullmq',
        env,
        workers: false,
        yaml: 'terminal:\n  unattended_backend: local',
      });
      const testGateway = gw;
      child = spawnCliWorker(testGateway, { env, logLevel: 'warn', onStderr: () => {} });
      const answer = testGateway.client().chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'run the slow command' }],
      });
      answer.catch(() => {});

      const started = join(testGateway.workdir, 'started.txt');
      await waitFor(() => existsSync(started) && readFileSync(started, 'utf8').trim() !== '', 90_000);
      const shell = Number(readFileSync(started, 'utf8').trim());
      expect(isLiveProcess(shell)).toBe(true);
      child.kill('SIGKILL');
      await new Promise((r) => child?.once('exit', r));

      // The orphaned command dies within a sweep or two, long before the turn's lock expires.
      await waitFor(() => !isLiveProcess(shell), 10_000);
      await testGateway.gateway.startWorkers();
      const completion = await answer;
      expect(completion.choices[0]?.message.content).toBe('Done after the retry.');
      const retried = fake.requests[1]?.body as { messages: { role: string; content: string | null }[] };
      expect(retried.messages.find((m) => m.role === 'tool')?.content).toContain('second run');
      expect(existsSync(join(testGateway.workdir, 'marker.txt'))).toBe(false);
    },
    150_000,
  );
});
