import { HermesError } from '../../errors/hermes-error.js';
import { TODO_MAX_ITEMS, type TodoItem, type TodoStatus } from './todo-item.js';

/** One item as the model sends it: `content` and `status` may be left out when merging. */
export interface TodoInput {
  readonly id: string;
  readonly content?: string | undefined;
  readonly status?: TodoStatus | undefined;
}

/** Keeps the last occurrence of each id, at the position of that last occurrence. */
function lastById(inputs: readonly TodoInput[]): TodoInput[] {
  const last = new Map<string, number>();
  for (const [index, input] of inputs.entries()) last.set(input.id, index);
  return inputs.filter((input, index) => last.get(input.id) === index);
}

function create(input: TodoInput): TodoItem {
  if (input.content === undefined) {
    throw new HermesError(
      'usage',
      `Item '${input.id}' is new, so it needs 'content' (its description); 'status' defaults to pending.`,
    );
  }
  return { id: input.id, content: input.content, status: input.status ?? 'pending' };
}

/**
 * The list after a write. `merge: false` replaces the whole list with `inputs` (a fresh plan);
 * `merge: true` updates the items whose id is known — only the fields given — and appends the
 * others in order. Repeated ids in one write: the last one wins. Refused beyond the item cap.
 */
export function applyTodoWrite(
  current: readonly TodoItem[],
  inputs: readonly TodoInput[],
  merge: boolean,
): TodoItem[] {
  const writes = lastById(inputs);
  let next: TodoItem[];
  if (!merge) {
    next = writes.map(create);
  } else {
    const byId = new Map(writes.map((input) => [input.id, input]));
    next = current.map((item) => {
      const update = byId.get(item.id);
      if (update === undefined) return item;
      byId.delete(item.id);
      return { id: item.id, content: update.content ?? item.content, status: update.status ?? item.status };
    });
    for (const input of byId.values()) next.push(create(input));
  }
  if (next.length > TODO_MAX_ITEMS) {
    throw new HermesError(
      'todo_limit',
      `A todo list holds at most ${TODO_MAX_ITEMS} items; this write would make ${next.length}. Drop finished or cancelled items (write the list again with merge=false) or group steps together.`,
    );
  }
  return next;
}
