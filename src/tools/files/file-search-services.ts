/**
 * Optional service for search_files, added to ToolServices by declaration merging. Nothing has to
 * wire it: without it search_files runs `rg` from PATH and falls back to its built-in search.
 */
declare module '../../registry/tool-services.js' {
  interface ToolServices {
    /** The ripgrep command or path search_files runs, or false to always use the built-in search. */
    readonly ripgrepCommand?: string | false;
  }
}

export {};
