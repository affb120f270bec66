import { z } from 'zod';

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** Most items one list may hold. */
export const TODO_MAX_ITEMS = 100;
/** Most characters of one item's text. */
export const TODO_MAX_CONTENT = 500;
/** Most characters of one item's id. */
export const TODO_MAX_ID = 100;

export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
}

/** A stored item, as checked when a persisted list is loaded back. */
export const todoItemSchema = z.object({
  id: z.string().trim().min(1).max(TODO_MAX_ID),
  content: z.string().trim().min(1).max(TODO_MAX_CONTENT),
  status: z.enum(TODO_STATUSES),
});

export interface TodoSummary {
  readonly total: number;
  readonly pending: number;
  readonly in_progress: number;
  readonly completed: number;
  readonly cancelled: number;
}

export function summarizeTodos(items: readonly TodoItem[]): TodoSummary {
  const count = (status: TodoStatus): number => items.filter((item) => item.status === status).length;
  return {
    total: items.length,
    pending: count('pending'),
    in_progress: count('in_progress'),
    completed: count('completed'),
    cancelled: count('cancelled'),
  };
}
