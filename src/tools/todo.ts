import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { applyTodoWrite } from './todo/apply-todo-write.js';
import {
  summarizeTodos,
  TODO_MAX_CONTENT,
  TODO_MAX_ID,
  TODO_MAX_ITEMS,
  TODO_STATUSES,
  type TodoItem,
} from './todo/todo-item.js';
import type {} from './todo/todo-services.js';

const item = z.object({
  id: z.string().trim().min(1).max(TODO_MAX_ID).describe('A short stable id, e.g. "1" or "tests".'),
  content: z
    .string()
    .trim()
    .min(1)
    .max(TODO_MAX_CONTENT)
    .optional()
    .describe(`What to do (at most ${TODO_MAX_CONTENT} characters). Required for a new item.`),
  status: z
    .enum(TODO_STATUSES)
    .optional()
    .describe('pending (default for a new item), in_progress, completed or cancelled.'),
});

const parameters = z.object({
  todos: z
    .array(item)
    .max(TODO_MAX_ITEMS)
    .optional()
    .describe('Items to write. Leave out to read the current list.'),
  merge: z
    .boolean()
    .default(false)
    .describe(
      'false (default): the list becomes exactly these items. true: update items by id (only the fields given) and append new ones.',
    ),
});

function reply(todos: readonly TodoItem[]): Record<string, unknown> {
  const summary = summarizeTodos(todos);
  const out: Record<string, unknown> = { todos, summary };
  if (summary.in_progress > 1) {
    const ids = todos.filter((t) => t.status === 'in_progress').map((t) => t.id);
    out['warning'] =
      `${summary.in_progress} items are in_progress (${ids.join(', ')}); keep one in progress at a time and mark the others pending or completed.`;
  }
  return out;
}

export const todoTool = defineTool({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  description:
    'Your task list for this conversation. Use it for work with three or more steps, or when the user asks for several things. ' +
    'Call it with no arguments to read the list. To write, send todos: with merge=false (default) the list becomes exactly those items — use it for a new plan; ' +
    'with merge=true items are updated by id (send just id and status to tick one off) and unknown ids are appended. ' +
    'Each item is {id, content, status}; status is pending, in_progress, completed or cancelled. The order of the list is the priority. ' +
    'Keep exactly one item in_progress at a time, mark an item completed as soon as it is done, and when something fails cancel it and add a revised item. ' +
    `At most ${TODO_MAX_ITEMS} items.`,
  parameters,
  checkFn: (services): CheckResult =>
    services.todoStore === undefined ? { ok: false, reason: 'todo store not configured' } : { ok: true },
  handler: async (args, ctx) => {
    const store = ctx.services.todoStore;
    if (store === undefined)
      throw new HermesError('usage', 'The todo list is not available in this gateway.');
    const todos = args.todos;
    if (todos === undefined) return reply(await store.read(ctx.sessionKey));
    return reply(await store.update(ctx.sessionKey, (current) => applyTodoWrite(current, todos, args.merge)));
  },
});
