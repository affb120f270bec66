import { join } from 'node:path';
import type { Logger } from 'pino';
import { HermesError } from '../errors/hermes-error.js';
import type { SharedFiles } from '../lib/shared-files.js';
import { type Availability, CheckCache } from './check-cache.js';
import { coerceArgs } from './coerce-args.js';
import { normalizeResult } from './normalize-result.js';
import { redactText, sanitizeToolError } from './sanitize-tool-error.js';
import { type SecretScrubber, secretScrubberFor } from './secret-scrubber.js';
import { Spillover } from './spillover.js';
import { ToolPause } from './tool-pause.js';
import type { ToolServices } from './tool-services.js';
import type {
  CallContext,
  CheckScope,
  OpenAiToolDefinition,
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolResult,
} from './tool-types.js';

export interface RegisterOptions {
  /** Replace a tool of the same name from another toolset (logged). */
  readonly override?: boolean;
}

export type RegisterOutcome = 'added' | 'replaced' | 'rejected';

export interface ToolStatus {
  readonly name: string;
  readonly toolset: string;
  readonly available: boolean;
  readonly reason?: string;
  readonly requiresEnv: readonly string[];
}

export interface Registry {
  register(tool: ToolDefinition, options?: RegisterOptions): RegisterOutcome;
  /**
   * Removes a tool of an `mcp-<server>` toolset (a server that no longer lists it); other tools
   * cannot be removed. True when it was there.
   */
  unregister(name: string): boolean;
  /**
   * Closes registration: later `register` calls throw, except for `mcp-<server>` toolsets, whose
   * tools come and go with their servers' connections. Called once start-up discovery is done.
   */
  seal(): void;
  readonly sealed: boolean;
  get(name: string): ToolDefinition | undefined;
  /** All registered tool names, sorted. */
  names(): string[];
  /** Tool names registered into one toolset, sorted. */
  namesInToolset(toolset: string): string[];
  /** Toolsets that have registered tools, sorted. */
  toolsets(): string[];
  /** Availability of each named tool (unknown names are skipped), probes cached; attended by default. */
  status(names?: readonly string[], scope?: CheckScope): ToolStatus[];
  /**
   * OpenAI function definitions for the available tools among `names`, sorted by name. `scope`
   * says what kind of session asks (a tool may be unavailable to unattended sessions only).
   */
  getDefinitions(names: readonly string[], scope?: CheckScope): OpenAiToolDefinition[];
  /** Runs a tool. Never throws: every failure is a result the model can read. */
  dispatch(name: string, args: unknown, call: CallContext): Promise<ToolResult>;
  /** Drops cached availability probes (after a config or environment change). */
  invalidateChecks(): void;
  readonly generation: number;
  readonly services: ToolServices;
  readonly spillover: Spillover;
}

export interface CreateRegistryOptions {
  readonly services: ToolServices;
  readonly logger?: Logger;
  readonly now?: () => number;
  /**
   * The shared database's file store (DATABASE_URL): spilled-over results are kept there too, up
   * to `database.spillover_max_bytes`, so their path can be read on any worker.
   */
  readonly sharedFiles?: SharedFiles;
}

const NEVER: AbortSignal = new AbortController().signal;

export function createRegistry(options: CreateRegistryOptions): Registry {
  const { services } = options;
  const logger = options.logger ?? services.logger;
  const now = options.now ?? Date.now;
  const config = services.config;
  const tools = new Map<string, ToolDefinition>();
  const checks = new CheckCache({
    now,
    onFailure: (fn, reason) => {
      const owners = [...tools.values()].filter((t) => t.checkFn === fn).map((t) => t.name);
      logger.info({ tools: owners, reason }, 'tool unavailable');
    },
  });
  const spillover = new Spillover({
    dir: join(config.home, 'cache', 'spillover'),
    ttlMs: config.tools.spillover_ttl_hours * 3_600_000,
    now,
    ...(options.sharedFiles === undefined
      ? {}
      : { shared: { files: options.sharedFiles, maxBytes: config.database.spillover_max_bytes } }),
  });
  // One search for every secret value and its encodings, shared by results and error texts.
  const secrets = secretScrubberFor(config);
  const defaultCwd = config.terminal.cwd ?? process.cwd();
  const memo = new Map<string, readonly OpenAiToolDefinition[]>();
  let sealed = false;
  let generation = 0;

  function availabilityOf(
    tool: ToolDefinition,
    probe: (fn: NonNullable<ToolDefinition['checkFn']>) => Availability,
  ) {
    return tool.checkFn ? probe(tool.checkFn) : { available: true };
  }

  function error(code: ToolErrorCode, message: string): ToolResult {
    return { kind: 'error', code, content: JSON.stringify({ error: sanitizeToolError(message, secrets) }) };
  }

  function thresholdFor(tool: ToolDefinition): number {
    const cap = config.tools.max_result_chars;
    if (tool.maxResultChars === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    const override = config.tools.result_overrides[tool.name];
    return Math.min(override ?? tool.maxResultChars ?? cap, cap);
  }

  const registry: Registry = {
    register(tool, registerOptions = {}) {
      if (sealed && !isMcpToolset(tool.toolset)) {
        throw new HermesError(
          'registry_closed',
          `cannot register tool '${tool.name}': registration closed when the gateway started; put the tool in src/tools/ or $HERMES_HOME/plugins/ so discovery registers it at start`,
        );
      }
      const existing = tools.get(tool.name);
      if (existing !== undefined && existing.toolset !== tool.toolset && registerOptions.override !== true) {
        logger.warn(
          { tool: tool.name, toolset: tool.toolset, existingToolset: existing.toolset },
          `tool registration rejected: '${tool.name}' from toolset '${tool.toolset}' would shadow the one from toolset '${existing.toolset}' (pass override: true to replace it)`,
        );
        return 'rejected';
      }
      if (existing !== undefined && existing.toolset !== tool.toolset) {
        logger.info(
          { tool: tool.name, from: existing.toolset, to: tool.toolset },
          'tool overridden (override: true)',
        );
      }
      tools.set(tool.name, tool);
      generation += 1;
      memo.clear();
      return existing === undefined ? 'added' : 'replaced';
    },
    unregister(name) {
      const tool = tools.get(name);
      if (tool === undefined) return false;
      if (!isMcpToolset(tool.toolset)) {
        throw new HermesError(
          'tool_registration_rejected',
          `cannot remove tool '${name}': only tools of mcp-<server> toolsets come and go at run time`,
        );
      }
      tools.delete(name);
      generation += 1;
      memo.clear();
      return true;
    },
    seal() {
      sealed = true;
    },
    get sealed() {
      return sealed;
    },
    get(name) {
      return tools.get(name);
    },
    names() {
      return [...tools.keys()].sort();
    },
    namesInToolset(toolset) {
      return [...tools.values()]
        .filter((t) => t.toolset === toolset)
        .map((t) => t.name)
        .sort();
    },
    toolsets() {
      return [...new Set([...tools.values()].map((t) => t.toolset))].sort();
    },
    status(names, scope) {
      const probe = checks.round(services, scope);
      const list = names ?? registry.names();
      const out: ToolStatus[] = [];
      for (const name of list) {
        const tool = tools.get(name);
        if (tool === undefined) continue;
        const availability = availabilityOf(tool, probe);
        out.push({
          name,
          toolset: tool.toolset,
          available: availability.available,
          ...(availability.reason !== undefined && !availability.available
            ? { reason: availability.reason }
            : {}),
          requiresEnv: tool.requiresEnv ?? [],
        });
      }
      return out;
    },
    getDefinitions(names, scope) {
      const probe = checks.round(services, scope);
      const offered: ToolDefinition[] = [];
      for (const name of [...new Set(names)].sort()) {
        const tool = tools.get(name);
        if (tool !== undefined && availabilityOf(tool, probe).available) offered.push(tool);
      }
      const key = offered.map((t) => t.name).join(',');
      const cached = memo.get(key);
      if (cached !== undefined) return [...cached];
      const available = new Set(offered.map((t) => t.name));
      const unavailable = registry.names().filter((n) => !available.has(n));
      const built = offered.map((tool) => buildDefinition(tool, services, available, unavailable, logger));
      if (memo.size >= 32) memo.clear();
      memo.set(key, Object.freeze([...built]));
      return built;
    },
    async dispatch(name, args, call) {
      const tool = tools.get(name);
      if (tool === undefined) {
        return error(
          'unknown_tool',
          `Unknown tool: '${String(name).slice(0, 100)}'. Use only the tools you were given.`,
        );
      }
      if (call.allowedTools !== undefined && !call.allowedTools.has(name)) {
        return error('tool_unavailable', `Tool '${name}' is not available in this session.`);
      }
      if (tool.checkFn !== undefined) {
        const availability = availabilityOf(
          tool,
          checks.round(services, { unattended: call.unattended ?? false }),
        );
        if (!availability.available) {
          return error(
            'tool_unavailable',
            `Tool '${name}' is not available right now: ${availability.reason ?? ''}`,
          );
        }
      }
      let raw = args;
      if (typeof raw === 'string') {
        try {
          raw = raw.trim() === '' ? {} : JSON.parse(raw);
        } catch {
          return error(
            'invalid_arguments',
            `Invalid arguments for ${name}: not valid JSON. Send a JSON object.`,
          );
        }
      }
      if (raw === null || raw === undefined) raw = {};
      const parsed = tool.parameters.safeParse(coerceArgs(raw, tool.jsonSchema));
      if (!parsed.success) {
        const problems = parsed.error.issues
          .slice(0, 8)
          .map((issue) => `'${issue.path.map(String).join('.') || '(arguments)'}': ${issue.message}`);
        return error('invalid_arguments', `Invalid arguments for ${name}: ${problems.join('; ')}`);
      }
      const ctx: ToolContext = {
        signal: call.signal ?? NEVER,
        sessionKey: call.sessionKey,
        taskId: call.taskId,
        cwd: call.cwd ?? defaultCwd,
        userId: call.userId,
        platform: call.platform,
        unattended: call.unattended ?? false,
        toolCallId: call.toolCallId,
        chat: call.chat,
        services,
      };
      let value: unknown;
      try {
        value = await tool.handler(parsed.data, ctx);
      } catch (thrown) {
        if (thrown instanceof ToolPause) {
          return {
            kind: 'paused',
            reason: thrown.reason,
            payload: thrown.payload,
            content: thrown.modelMessage,
          };
        }
        if (ctx.signal.aborted) return error('aborted', `Tool ${name} was stopped before it finished.`);
        const type = thrown instanceof Error ? thrown.constructor.name : typeof thrown;
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        logger.debug(
          { tool: name, sessionKey: call.sessionKey, err: redactText(message, secrets) },
          'tool failed',
        );
        return error('tool_failed', `Tool ${name} failed: ${type}: ${message}`);
      }
      // Every result is scrubbed of secret values before the model (or a spill-over file) sees it.
      const normalized = normalizeResult(scrubResult(value, secrets));
      if (!normalized.ok) {
        logger.warn({ tool: name, resultType: normalized.type }, 'tool broke the result contract');
        return error(
          'tool_result_contract',
          `Tool ${name} returned an unsupported result type (${normalized.type}); this is a bug in the tool, not in your call.`,
        );
      }
      const text = normalized.text;
      if (text.length > thresholdFor(tool)) {
        const spilled = await spillover.spill(name, text);
        return spilled.path === undefined
          ? { kind: 'ok', content: spilled.notice }
          : { kind: 'ok', content: spilled.notice, spilledTo: spilled.path };
      }
      return { kind: 'ok', content: text };
    },
    invalidateChecks() {
      checks.invalidate();
      memo.clear();
    },
    get generation() {
      return generation;
    },
    services,
    spillover,
  };
  return registry;
}

/**
 * A handler's value with every secret scrubbed from its strings. Values that are not plain JSON
 * are turned into JSON first (so nothing escapes through a toJSON or a class instance); a value
 * that cannot be (a cycle, a bigint…) is returned as is for normalizeResult to reject.
 */
function scrubResult(value: unknown, secrets: SecretScrubber): unknown {
  if (typeof value === 'string') return secrets.scrub(value);
  if (
    typeof value !== 'object' ||
    value === null ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof Promise
  )
    return value;
  let plain: unknown;
  try {
    const text = JSON.stringify(value);
    if (typeof text !== 'string') return value;
    plain = JSON.parse(text);
  } catch {
    return value;
  }
  return secrets.scrubDeep(plain);
}

function buildDefinition(
  tool: ToolDefinition,
  services: ToolServices,
  available: ReadonlySet<string>,
  unavailable: readonly string[],
  logger: Logger,
): OpenAiToolDefinition {
  let description = tool.description;
  let parameters = tool.jsonSchema;
  if (tool.dynamicSchema !== undefined) {
    try {
      const patch = tool.dynamicSchema({ services, available });
      if (patch?.description !== undefined) description = patch.description;
      if (patch?.parameters !== undefined) parameters = patch.parameters;
    } catch (error) {
      logger.warn(
        { tool: tool.name, err: (error as Error).message },
        'dynamic schema failed; using the static one',
      );
    }
  }
  return Object.freeze({
    type: 'function' as const,
    function: Object.freeze({
      name: tool.name,
      description: dropMentions(description, unavailable),
      parameters,
    }),
  });
}

/** Removes sentences that mention a tool that is not being offered, so none is advertised. */
export function dropMentions(description: string, unavailable: readonly string[]): string {
  const mentioned = unavailable.filter((name) => description.includes(name));
  if (mentioned.length === 0) return description;
  const pattern = new RegExp(`(?<![A-Za-z0-9_])(?:${mentioned.map(escapeRegExp).join('|')})(?![A-Za-z0-9_])`);
  const sentences = description.match(/[^.!?\n]+(?:[.!?]+|\n+|$)/g) ?? [description];
  return sentences
    .filter((sentence) => !pattern.test(sentence))
    .join('')
    .trim();
}

/** Toolsets of MCP servers (`mcp-<server>`): registered and removed while the gateway runs. */
export function isMcpToolset(toolset: string): boolean {
  return toolset.startsWith('mcp-');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
