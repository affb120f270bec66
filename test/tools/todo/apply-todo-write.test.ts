import { describe, expect, it } from 'vitest';
import { applyTodoWrite } from '../../../src/tools/todo/apply-todo-write.js';
import { summarizeTodos, type TodoItem } from '../../../src/tools/todo/todo-item.js';

const current: TodoItem[] = [
  { id: 'a', content: 'A', status: 'completed' },
  { id: 'b', content: 'B', status: 'pending' },
];

describe('applyTodoWrite', () => {
  it('replace ignores the current list', () => {
    expect(applyTodoWrite(current, [{ id: 'c', content: 'C' }], false)).toEqual([
      { id: 'c', content: 'C', status: 'pending' },
    ]);
  });

  it('merge keeps order, updates in place and appends', () => {
    expect(
      applyTodoWrite(
        current,
        [
          { id: 'c', content: 'C' },
          { id: 'a', content: 'A2' },
          { id: 'b', status: 'cancelled' },
        ],
        true,
      ),
    ).toEqual([
      { id: 'a', content: 'A2', status: 'completed' },
      { id: 'b', content: 'B', status: 'cancelled' },
      { id: 'c', content: 'C', status: 'pending' },
    ]);
  });

  it('merge with a repeated id applies the last one only', () => {
    expect(
      applyTodoWrite(
        current,
        [
          { id: 'b', status: 'completed' },
          { id: 'b', status: 'in_progress' },
        ],
        true,
      ),
    ).toEqual([current[0], { id: 'b', content: 'B', status: 'in_progress' }]);
  });

  it('does not change the current list', () => {
    const before = structuredClone(current);
    applyTodoWrite(current, [{ id: 'a', status: 'pending' }], true);
    expect(current).toEqual(before);
  });

  it('summarizes by status', () => {
    expect(summarizeTodos(current)).toEqual({
      total: 2,
      pending: 1,
      in_progress: 0,
      completed: 1,
      cancelled: 0,
    });
  });
});
