import type { z } from 'zod';
import type { ToolServices } from './tool-services.js';

/** What the caller of `dispatch` knows about the call. */
export interface CallContext {
  /** Aborts the tool (turn stopped, timeout). Defaults to a signal that never fires. */
  readonly signal?: AbortSignal;
  /** The session key, e.g. `agent:main:telegram:dm:42`. */
  readonly sessionKey: string;
  /** The id of this task (turn or sub-agent); tools key per-task state by it. */
  readonly taskId: string;
  /** Working directory for relative paths; defaults to terminal.cwd or the process cwd. */
  readonly cwd?: string;
  readonly userId?: string;
  readonly platform?: string;
  /** True when nobody can answer an approval prompt (webhooks, API server). */
  readonly unattended?: boolean;
  /** The id of the model's tool call, when there is one. */
  readonly toolCallId?: string;
  /** When given, only these tools may run (the session's resolved toolset). */
  readonly allowedTools?: ReadonlySet<string>;
  /** The chat the call's turn answers to, when it came from one (a chat platform, a webhook). */
  readonly chat?: ToolChat;
}

/** Where a turn answers: the chat of its origin. */
export interface ToolChat {
  readonly chatType: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  /** Display name of the sender. */
  readonly userName?: string | undefined;
}

/** What a handler receives: the call context, filled in, plus the long-lived services. */
export interface ToolContext extends Required<Pick<CallContext, 'signal' | 'sessionKey' | 'taskId' | 'cwd'>> {
  readonly userId: string | undefined;
  readonly platform: string | undefined;
  readonly unattended: boolean;
  readonly toolCallId: string | undefined;
  /** Undefined outside a chat (sub-agents, direct dispatch). */
  readonly chat?: ToolChat | undefined;
  readonly services: ToolServices;
}

/** Availability: `true`, or `false` / a reason string when the tool cannot be offered now. */
export type CheckResult = boolean | { readonly ok: boolean; readonly reason?: string };
/** What an availability probe may depend on besides the services: the kind of session asking. */
export interface CheckScope {
  /** True when nobody can answer an approval prompt (API server, webhooks, delegated tasks). */
  readonly unattended: boolean;
}
export type CheckFn = (services: ToolServices, scope?: CheckScope) => CheckResult;

/** Patches applied on top of the static definition each time definitions are built. */
export interface DynamicSchemaPatch {
  readonly description?: string;
  readonly parameters?: Record<string, unknown>;
}

export type AnyParams = z.ZodObject<z.ZodRawShape>;

export interface ToolSpec<P extends AnyParams> {
  /** `^[a-z][a-z0-9_]{0,63}$`, or `mcp__<server>__<tool>` for MCP tools. */
  readonly name: string;
  readonly toolset: string;
  readonly description: string;
  readonly parameters: P;
  readonly handler: (args: z.output<P>, ctx: ToolContext) => unknown;
  readonly checkFn?: CheckFn;
  /** Environment/config the tool needs, shown by `tools list` and `doctor` when missing. */
  readonly requiresEnv?: readonly string[];
  readonly emoji?: string;
  /** Characters above which the result spills to a file; `Infinity` disables (read_file). */
  readonly maxResultChars?: number;
  /**
   * Adjusts the definition each time definitions are built, e.g. to stop mentioning a tool that
   * is unavailable. `available` holds the names of the tools being offered in this call.
   */
  readonly dynamicSchema?: (input: {
    readonly services: ToolServices;
    readonly available: ReadonlySet<string>;
  }) => DynamicSchemaPatch | undefined;
  /** Read-only tools may run in parallel within one model step. */
  readonly readOnly?: boolean;
}

/** A validated tool: the spec plus its JSON Schema, computed once at definition time. */
export interface ToolDefinition<P extends AnyParams = AnyParams> extends ToolSpec<P> {
  readonly kind: 'hermes-tool';
  readonly jsonSchema: Record<string, unknown>;
}

/** The OpenAI function-calling shape returned by `getDefinitions`. */
export interface OpenAiToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: Record<string, unknown>;
  };
}

export type ToolErrorCode =
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'tool_failed'
  | 'tool_result_contract'
  | 'tool_unavailable'
  | 'aborted';

/** Outcome of `dispatch`; never thrown. `content` is what the model sees. */
export type ToolResult =
  | { readonly kind: 'ok'; readonly content: string; readonly spilledTo?: string }
  | { readonly kind: 'error'; readonly code: ToolErrorCode; readonly content: string }
  | { readonly kind: 'paused'; readonly reason: string; readonly payload: unknown; readonly content: string };
