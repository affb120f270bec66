import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../../src/tools/todo/todo-item.js';
import {
  DEFAULT_TODO_SESSIONS,
  type TodoPersistence,
  TodoStore,
} from '../../../src/tools/todo/todo-store.js';

const item = (id: string, status: TodoItem['status'] = 'pending'): TodoItem => ({
  id,
  content: `do ${id}`,
  status,
});

/** A persistence hook backed by a Map, recording calls (the gateway store will provide the real one). */
function mapPersistence(seed: Record<string, readonly unknown[]> = {}) {
  const rows = new Map<string, readonly unknown[]>(Object.entries(seed));
  const calls: string[] = [];
  let failSaves = false;
  const hook: TodoPersistence = {
    async load(sessionKey) {
      calls.push(`load ${sessionKey}`);
      return rows.get(sessionKey);
    },
    async save(sessionKey, list) {
      calls.push(`save ${sessionKey} ${list.length}`);
      if (failSaves) throw new Error('disk full');
      rows.set(sessionKey, list);
    },
  };
  return {
    hook,
    rows,
    calls,
    failNextSaves: () => {
      failSaves = true;
    },
  };
}

describe('TodoStore', () => {
  it('holds 1,000 sessions by default and refuses a bad cap', () => {
    expect(new TodoStore().maxSessions).toBe(DEFAULT_TODO_SESSIONS);
    expect(DEFAULT_TODO_SESSIONS).toBe(1_000);
    expect(() => new TodoStore({ maxSessions: 0 })).toThrow(RangeError);
  });

  it('drops the least recently used sessions beyond the cap', async () => {
    const store = new TodoStore({ maxSessions: 3 });
    for (const key of ['a', 'b', 'c']) await store.update(key, () => [item(key)]);
    await store.read('a'); // a is now the most recent
    await store.update('d', () => [item('d')]);
    expect(store.size).toBe(3);
    expect(await store.read('a')).toEqual([item('a')]);
    expect(await store.read('c')).toEqual([item('c')]);
    expect(await store.read('d')).toEqual([item('d')]);
    expect(await store.read('b')).toEqual([]); // evicted, no persistence
  });

  it('stays bounded over many sessions', async () => {
    const store = new TodoStore({ maxSessions: 50 });
    for (let i = 0; i < 500; i += 1) await store.update(`s${i}`, () => [item('x')]);
    expect(store.size).toBe(50);
  });

  it('reloads evicted sessions through the persistence hook', async () => {
    const persistence = mapPersistence();
    const store = new TodoStore({ maxSessions: 1, persistence: persistence.hook });
    await store.update('a', () => [item('1', 'completed')]);
    await store.update('b', () => [item('2')]);
    expect(await store.read('a')).toEqual([item('1', 'completed')]);
    expect(persistence.calls).toEqual(['load a', 'save a 1', 'load b', 'save b 1', 'load a']);
  });

  it('loads a saved list once, dropping malformed items', async () => {
    const persistence = mapPersistence({
      s: [
        item('ok'),
        { id: 'bad', content: 'x', status: 'done' },
        'junk',
        { id: '', content: 'x', status: 'pending' },
      ],
    });
    const store = new TodoStore({ persistence: persistence.hook });
    expect(await store.read('s')).toEqual([item('ok')]);
    expect(await store.read('s')).toEqual([item('ok')]);
    expect(persistence.calls).toEqual(['load s']);
  });

  it('keeps the old list when saving fails, and reports the failure', async () => {
    const persistence = mapPersistence();
    const store = new TodoStore({ persistence: persistence.hook });
    await store.update('s', () => [item('1')]);
    persistence.failNextSaves();
    await expect(store.update('s', () => [item('2')])).rejects.toThrow('disk full');
    expect(await store.read('s')).toEqual([item('1')]);
  });

  it('clear empties the list in memory and in persistence', async () => {
    const persistence = mapPersistence();
    const store = new TodoStore({ persistence: persistence.hook });
    await store.update('s', () => [item('1')]);
    await store.clear('s');
    expect(persistence.rows.get('s')).toEqual([]);
    expect(await store.read('s')).toEqual([]);
  });

  it('returns lists that callers cannot change', async () => {
    const store = new TodoStore();
    const list = await store.update('s', () => [item('1')]);
    expect(Object.isFrozen(list)).toBe(true);
  });
});
