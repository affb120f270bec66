import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HermesErrorCode, isHermesError } from '../../src/errors/hermes-error.js';
import type { ToolServices } from '../../src/registry/tool-services.js';
import type { TodoItem, TodoSummary } from '../../src/tools/todo/todo-item.js';
import { TodoStore } from '../../src/tools/todo/todo-store.js';
import { todoTool } from '../../src/tools/todo.js';
import { makeTempHome, testConfig, testServices } from '../helpers/test-config.js';
import { toolCtx } from './memory/tool-ctx.js';

let temp: ReturnType<typeof makeTempHome>;
let services: ToolServices;
beforeEach(() => {
  temp = makeTempHome('hermes-todo-');
  services = testServices(testConfig(temp.home), { todoStore: new TodoStore() });
});
afterEach(() => temp.cleanup());

type Reply = { todos: TodoItem[]; summary: TodoSummary; warning?: string };

const SESSION = 'agent:main:telegram:dm:42';

async function call(args: Record<string, unknown>, sessionKey = SESSION): Promise<Reply> {
  return (await todoTool.handler(
    todoTool.parameters.parse(args),
    toolCtx(services, { sessionKey }),
  )) as Reply;
}

async function failure(args: Record<string, unknown>): Promise<{ code: HermesErrorCode; message: string }> {
  try {
    await call(args);
  } catch (error) {
    if (isHermesError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the call to fail');
}

const plan = [
  { id: '1', content: 'Read the code', status: 'completed' },
  { id: '2', content: 'Write the fix', status: 'in_progress' },
  { id: '3', content: 'Run the tests', status: 'pending' },
];

describe('todo tool: definition', () => {
  it('is named and shaped as in Hermes', () => {
    expect(todoTool.name).toBe('todo');
    expect(todoTool.toolset).toBe('todo');
    expect(todoTool.jsonSchema).toMatchObject({
      properties: {
        todos: {
          type: 'array',
          maxItems: 100,
          items: {
            properties: {
              id: { type: 'string' },
              content: { type: 'string', maxLength: 500 },
              status: { enum: ['pending', 'in_progress', 'completed', 'cancelled'] },
            },
          },
        },
        merge: { type: 'boolean', default: false },
      },
    });
    expect(todoTool.description).toMatch(/one item in_progress/);
  });

  it('is unavailable without a todo store', async () => {
    const bare = testServices(testConfig(temp.home));
    expect(todoTool.checkFn?.(bare)).toEqual({ ok: false, reason: 'todo store not configured' });
    expect(todoTool.checkFn?.(services)).toEqual({ ok: true });
    await expect(todoTool.handler(todoTool.parameters.parse({}), toolCtx(bare))).rejects.toThrow(
      /not available/,
    );
  });
});

describe('todo tool: read and replace', () => {
  it('reads an empty list with a zero summary', async () => {
    expect(await call({})).toEqual({
      todos: [],
      summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 },
    });
  });

  it('replaces the list (merge=false) and returns it with counts', async () => {
    await call({ todos: [{ id: 'old', content: 'Old plan', status: 'pending' }] });
    const reply = await call({ todos: plan });
    expect(reply.todos).toEqual(plan);
    expect(reply.summary).toEqual({ total: 3, pending: 1, in_progress: 1, completed: 1, cancelled: 0 });
    expect(reply.warning).toBeUndefined();
    expect((await call({})).todos).toEqual(plan);
  });

  it('an empty array clears the list', async () => {
    await call({ todos: plan });
    expect((await call({ todos: [] })).todos).toEqual([]);
  });

  it('defaults a new item to pending and trims text', async () => {
    const reply = await call({ todos: [{ id: ' a ', content: '  Do it  ' }] });
    expect(reply.todos).toEqual([{ id: 'a', content: 'Do it', status: 'pending' }]);
  });

  it('keeps the last of repeated ids', async () => {
    const reply = await call({
      todos: [
        { id: 'a', content: 'first', status: 'pending' },
        { id: 'b', content: 'b', status: 'pending' },
        { id: 'a', content: 'second', status: 'completed' },
      ],
    });
    expect(reply.todos).toEqual([
      { id: 'b', content: 'b', status: 'pending' },
      { id: 'a', content: 'second', status: 'completed' },
    ]);
  });

  it('needs content for every item of a replace', async () => {
    const refused = await failure({ todos: [{ id: '1', status: 'completed' }] });
    expect(refused.code).toBe('usage');
    expect(refused.message).toMatch(/'1' is new/);
  });

  it('warns, without refusing, when several items are in_progress', async () => {
    const reply = await call({
      todos: [
        { id: 'a', content: 'A', status: 'in_progress' },
        { id: 'b', content: 'B', status: 'in_progress' },
      ],
    });
    expect(reply.todos).toHaveLength(2);
    expect(reply.warning).toMatch(/2 items are in_progress \(a, b\)/);
  });
});

describe('todo tool: merge', () => {
  beforeEach(async () => {
    await call({ todos: plan });
  });

  it('updates known ids with only the fields given and appends new ones in order', async () => {
    const reply = await call({
      merge: true,
      todos: [
        { id: '2', status: 'completed' },
        { id: '4', content: 'Open a PR' },
        { id: '3', content: 'Run all the tests', status: 'in_progress' },
        { id: '5', content: 'Celebrate', status: 'cancelled' },
      ],
    });
    expect(reply.todos).toEqual([
      { id: '1', content: 'Read the code', status: 'completed' },
      { id: '2', content: 'Write the fix', status: 'completed' },
      { id: '3', content: 'Run all the tests', status: 'in_progress' },
      { id: '4', content: 'Open a PR', status: 'pending' },
      { id: '5', content: 'Celebrate', status: 'cancelled' },
    ]);
    expect(reply.summary).toEqual({ total: 5, pending: 1, in_progress: 1, completed: 2, cancelled: 1 });
  });

  it('needs content for a new id', async () => {
    const refused = await failure({ merge: true, todos: [{ id: 'new', status: 'pending' }] });
    expect(refused.code).toBe('usage');
    expect((await call({})).todos).toEqual(plan);
  });

  it('an empty merge changes nothing', async () => {
    expect((await call({ merge: true, todos: [] })).todos).toEqual(plan);
  });
});

describe('todo tool: caps and validation', () => {
  const items = (n: number, prefix = 'i') =>
    Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, content: `task ${i}`, status: 'pending' }));

  it('accepts 100 items and refuses a 101st, whether sent at once or merged', async () => {
    expect((await call({ todos: items(100) })).summary.total).toBe(100);
    expect(todoTool.parameters.safeParse({ todos: items(101) }).success).toBe(false);
    const refused = await failure({ merge: true, todos: items(1, 'extra') });
    expect(refused.code).toBe('todo_limit');
    expect(refused.message).toMatch(/at most 100/);
    expect((await call({})).todos).toHaveLength(100);
  });

  it('limits content to 500 characters and ids to 100', () => {
    const ok = todoTool.parameters.safeParse({ todos: [{ id: '1', content: 'x'.repeat(500) }] });
    expect(ok.success).toBe(true);
    expect(todoTool.parameters.safeParse({ todos: [{ id: '1', content: 'x'.repeat(501) }] }).success).toBe(
      false,
    );
    expect(todoTool.parameters.safeParse({ todos: [{ id: 'x'.repeat(101), content: 'c' }] }).success).toBe(
      false,
    );
  });

  it('refuses empty ids or content and unknown statuses', () => {
    expect(todoTool.parameters.safeParse({ todos: [{ id: ' ', content: 'c' }] }).success).toBe(false);
    expect(todoTool.parameters.safeParse({ todos: [{ id: '1', content: '  ' }] }).success).toBe(false);
    expect(
      todoTool.parameters.safeParse({ todos: [{ id: '1', content: 'c', status: 'done' }] }).success,
    ).toBe(false);
  });
});

describe('todo tool: sessions', () => {
  it('keeps one list per session key', async () => {
    await call({ todos: plan }, 'agent:main:telegram:dm:1');
    await call({ todos: [{ id: 'x', content: 'Other' }] }, 'agent:main:telegram:dm:2');
    expect((await call({}, 'agent:main:telegram:dm:1')).todos).toEqual(plan);
    expect((await call({}, 'agent:main:telegram:dm:2')).todos).toEqual([
      { id: 'x', content: 'Other', status: 'pending' },
    ]);
  });

  it('serialises concurrent merges of one session (no lost update)', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call({ merge: true, todos: [{ id: `t${i}`, content: `task ${i}` }] }),
      ),
    );
    const list = (await call({})).todos;
    expect(list.map((t) => t.id).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}`).sort());
  });
});
