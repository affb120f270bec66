import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { spawnCliWorker, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

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
    const env = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'sk-test-0123456789abc',
      HERMES_MODEL: 'fake-model',
    };
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
});
