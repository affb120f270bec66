import type { MemoryStore } from './memory-store.js';

/**
 * The memory tool's service, added to ToolServices by declaration merging. main.ts creates one
 * `MemoryStore` rooted at `$HERMES_HOME/memories`; without it the tool reports itself unavailable.
 */
declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly memoryStore?: MemoryStore;
  }
}

export type { MemoryStore };
