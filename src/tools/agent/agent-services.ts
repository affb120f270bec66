/**
 * Services of the agent-loop tools `session_search` and `delegate_task`, added to ToolServices
 * by declaration merging. The tools only see these interfaces; the gateway provides the
 * implementations (the store for search, the sub-agent runner for delegation). Without them the
 * tools report themselves unavailable.
 */

/** The part of the gateway store `session_search` reads (the GatewayStore fits as it is). */
export interface SessionSearchService {
  getSession(key: string): Promise<{ readonly sessionId: string } | undefined>;
  searchMessages(
    query: string,
    options?: {
      readonly sessionKeyPrefix?: string;
      readonly excludeSessionId?: string;
      readonly roles?: readonly ('system' | 'user' | 'assistant' | 'tool')[];
      readonly limit?: number;
    },
  ): Promise<readonly SessionSearchHit[]>;
}

export interface SessionSearchHit {
  readonly sessionKey: string;
  readonly sessionId: string;
  readonly seq: number;
  readonly role: string;
  readonly snippet: string;
  readonly createdAt: number;
}

export interface SubAgentRequest {
  readonly goal: string;
  readonly context?: string | undefined;
  /** Toolsets (or tool names) for the sub-agent; must stay within the parent's tools. */
  readonly toolsets?: readonly string[] | undefined;
  /** The task id of the caller (the tool context's `taskId`). */
  readonly parentTaskId: string;
  readonly sessionKey: string;
  readonly userId: string | undefined;
  readonly platform: string | undefined;
  readonly cwd: string;
  readonly signal: AbortSignal;
}

export interface SubAgentResult {
  /** True when the sub-agent gave a final report; false when it hit its step limit. */
  readonly completed: boolean;
  readonly text: string;
  /** Model calls the sub-agent made. */
  readonly iterations: number;
  readonly toolCalls: number;
  readonly tools: readonly string[];
}

export interface SubAgentService {
  /** Runs a sub-agent to completion; throws with a model-readable message when it cannot start. */
  run(request: SubAgentRequest): Promise<SubAgentResult>;
}

declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly sessionSearch?: SessionSearchService;
    readonly subAgent?: SubAgentService;
  }
}
