import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUB_AGENT_BLOCKED_TOOLS } from '../../src/gateway/turn/create-sub-agent-runner.js';
import type { ToolContext } from '../../src/registry/tool-types.js';
import { delegateTaskTool } from '../../src/tools/delegate-task.js';
import { type Harness, message, requestMessages, turnHarness } from '../gateway/turn/turn-test-kit.js';
import { testConfig, testServices } from '../helpers/test-config.js';

let h: Harness;
beforeEach(async () => {
  h = await turnHarness();
});
afterEach(async () => {
  await h.close();
});

function ctx(taskId: string): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionKey: 'agent:main:telegram:dm:42',
    taskId,
    cwd: h.work,
    userId: '42',
    platform: 'telegram',
    unattended: false,
    toolCallId: 'c1',
    services: h.registry.services,
  };
}

function enterParent(taskId: string, tools: string[], depth = 0) {
  return h.tasks.enter({
    taskId,
    sessionKey: 'agent:main:telegram:dm:42',
    depth,
    model: 'fake-model',
    allowedTools: new Set(tools),
  });
}

async function delegate(taskId: string, args: Record<string, unknown>) {
  return (await delegateTaskTool.handler(delegateTaskTool.parameters.parse(args), ctx(taskId))) as Record<
    string,
    unknown
  >;
}

describe('delegate_task', () => {
  it('runs a sub-agent with its own transcript and returns its report', async () => {
    const leave = enterParent('parent', ['echo_text', 'delegate_task', 'clarify', 'memory', 'slow_read']);
    h.fake.script(
      { content: '', toolCalls: [{ id: 's1', name: 'echo_text', arguments: '{"text":"from child"}' }] },
      { content: 'Report: echo answered "from child".' },
    );
    const reply = await delegate('parent', { goal: 'Echo something', context: 'Use echo_text.' });
    leave();
    expect(reply).toEqual({
      status: 'completed',
      report: 'Report: echo answered "from child".',
      iterations: 2,
      tool_calls: 1,
    });
    const first = requestMessages(h.fake, 0);
    expect(String(first[0]!['content'])).toContain('sub-agent');
    expect(first[1]).toEqual({ role: 'user', content: 'Task:\nEcho something\n\nContext:\nUse echo_text.' });
    const tools = (h.fake.requests[0]!.body['tools'] as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(tools).toEqual(expect.arrayContaining(['echo_text', 'delegate_task', 'slow_read']));
    for (const blocked of SUB_AGENT_BLOCKED_TOOLS) expect(tools).not.toContain(blocked);
    expect(requestMessages(h.fake, 1).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 's1',
      content: 'echo: from child',
    });
    expect(h.tasks.size).toBe(0);
  });

  it('accepts a narrower toolset and refuses tools the parent does not have', async () => {
    const leave = enterParent('parent', ['echo_text', 'slow_read']);
    h.fake.script({ content: 'ok' });
    await delegate('parent', { goal: 'read', toolsets: ['slow_read'] });
    const tools = (h.fake.requests[0]!.body['tools'] as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(tools).toEqual(['slow_read']);
    await expect(delegate('parent', { goal: 'x', toolsets: ['terminal'] })).rejects.toThrow(
      /not available to you: process, terminal/,
    );
    await expect(delegate('parent', { goal: 'x', toolsets: ['nonsense'] })).rejects.toThrow(
      /unknown toolset/,
    );
    leave();
  });

  it('limits nesting: the deepest sub-agent gets no delegate_task, and deeper calls are refused', async () => {
    const leave = enterParent('deep', ['echo_text', 'delegate_task'], 1);
    h.fake.script({ content: 'done' });
    await delegate('deep', { goal: 'x' });
    const tools = (h.fake.requests[0]!.body['tools'] as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(tools).toEqual(['echo_text']);
    leave();
    const leave2 = enterParent('deepest', ['echo_text', 'delegate_task'], 2);
    await expect(delegate('deepest', { goal: 'x' })).rejects.toThrow(/nest 2 levels/);
    leave2();
  });

  it('stops at its step limit and says so', async () => {
    const leave = enterParent('parent', ['echo_text']);
    h.fake.respond = () => ({
      content: 'still going',
      toolCalls: [{ name: 'echo_text', arguments: '{"text":"again"}' }],
    });
    const reply = await delegate('parent', { goal: 'never ends' });
    leave();
    expect(reply['status']).toBe('incomplete');
    expect(reply['iterations']).toBe(30);
    expect(String(reply['report'])).toContain('still going');
  });

  it('refuses outside a running turn, and is unavailable without the service', async () => {
    await expect(delegate('nobody', { goal: 'x' })).rejects.toThrow(/inside a running agent turn/);
    expect(delegateTaskTool.checkFn?.(testServices(testConfig(h.work)))).toMatchObject({ ok: false });
  });

  it('works end to end from a turn: the sub-agent runs under the turn and its report reaches the model', async () => {
    h.fake.script(
      {
        content: '',
        toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: '{"goal":"find the answer"}' }],
      },
      { content: 'The answer is 42.' }, // the sub-agent's final report
      { content: 'My sub-agent says: 42.' }, // the turn's final answer
    );
    await h.run([message('e1', 'delegate please')]);
    expect(h.rec.terminal().map((entry) => entry.type)).toEqual(['final']);
    expect(h.rec.finals()[0]!.text).toBe('My sub-agent says: 42.');
    const result = requestMessages(h.fake, 2).at(-1)!;
    expect(result['tool_call_id']).toBe('d1');
    expect(JSON.parse(String(result['content']))).toMatchObject({
      status: 'completed',
      report: 'The answer is 42.',
    });
    // Nothing of the sub-agent is written to the session.
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
