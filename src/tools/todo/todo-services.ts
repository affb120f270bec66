import type { TodoStore } from './todo-store.js';

/**
 * The todo tool's service, added to ToolServices by declaration merging. main.ts creates one
 * `TodoStore`; without it the tool reports itself unavailable.
 */
declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly todoStore?: TodoStore;
  }
}

export type { TodoStore };
