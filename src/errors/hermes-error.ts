/**
 * Every error this project throws on purpose carries a stable `code`, so callers, logs and
 * tests match on the code and never on the wording.
 */
export type HermesErrorCode =
  | 'config_invalid'
  | 'config_unreadable'
  | 'tool_definition_invalid'
  | 'tool_registration_rejected'
  | 'registry_closed'
  | 'toolset_unknown'
  | 'toolset_invalid'
  | 'path_refused'
  | 'ssrf_refused'
  | 'fetch_failed'
  | 'model_failed'
  | 'approval_store_failed'
  | 'approval_mismatch'
  | 'command_denied'
  | 'exec_failed'
  | 'process_unknown'
  | 'process_limit'
  | 'file_not_found'
  | 'file_unsupported'
  | 'file_bad_argument'
  | 'patch_no_match'
  | 'patch_ambiguous'
  | 'search_failed'
  | 'session_key_invalid'
  | 'store_failed'
  | 'queue_closed'
  | 'queue_failed'
  | 'turn_failed'
  | 'turn_aborted'
  | 'memory_full'
  | 'memory_no_match'
  | 'memory_ambiguous'
  | 'content_refused'
  | 'todo_limit'
  | 'usage'
  | 'route_unguarded'
  | 'home_locked'
  | 'redis_unreachable'
  | 'address_in_use'
  | 'platform_failed'
  | 'admin_only'
  | 'mcp_unavailable'
  | 'mcp_failed';

export class HermesError extends Error {
  readonly code: HermesErrorCode;

  constructor(code: HermesErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HermesError';
    this.code = code;
  }
}

export function isHermesError(value: unknown, code?: HermesErrorCode): value is HermesError {
  return value instanceof HermesError && (code === undefined || value.code === code);
}
