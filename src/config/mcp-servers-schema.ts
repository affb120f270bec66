import { z } from 'zod';

/**
 * `mcp_servers:` in config.yaml: external MCP servers whose tools join the registry as toolset
 * `mcp-<name>`. A server is either a program started over stdio (`command`) or a streamable HTTP
 * endpoint (`url`), never both.
 */

/** Server names become toolset `mcp-<name>` and tool names `mcp__<name>__<tool>`. */
export const MCP_SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_)){0,31}$/;

export const mcpServerSchema = z
  .object({
    /** stdio: the program to start (name on PATH or a path). */
    command: z.string().min(1).optional(),
    /** stdio: its arguments. */
    args: z.array(z.string()).default([]),
    /**
     * stdio: variables set for the program besides the safe base (PATH, HOME, LANG…); a value may
     * be `${NAME}` to take NAME from the gateway's environment (never one of the gateway's own secrets).
     */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
    /** stdio: working directory of the program; default the gateway's. */
    cwd: z.string().min(1).optional(),
    /** Streamable HTTP: the endpoint (`http(s)://host/mcp`). */
    url: z.url().optional(),
    /** Streamable HTTP: request headers (`Authorization: Bearer ${TOKEN}`; `${NAME}` as for env). */
    headers: z.record(z.string().min(1), z.string()).default({}),
    /** Seconds one tool call may take before it fails. */
    timeout: z.number().positive().max(3_600).default(120),
    /** Seconds connecting and listing tools may take before the attempt counts as failed. */
    connect_timeout: z.number().positive().max(600).default(60),
    /** false: configured but not started (its toolset stays empty). */
    enabled: z.boolean().default(true),
    /** Offer only these tools of the server (their MCP names), or all but `exclude`. */
    tools: z
      .object({
        include: z.array(z.string().min(1)).optional(),
        exclude: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .refine((t) => t.include === undefined || t.exclude === undefined, {
        message: 'give tools.include or tools.exclude, not both',
      })
      .optional(),
    /**
     * Platforms whose sessions get the toolset by default (`telegram`, `discord`, `api_server`…).
     * Default: every chat platform and the API server; webhooks only when a route names it.
     */
    platforms: z.array(z.string().min(1)).optional(),
    /**
     * Which calls need a human through the approval gate: `destructive` (default) the tools the
     * server marks with `destructiveHint`, `all` every call, `none` no call.
     */
    approval: z.enum(['destructive', 'all', 'none']).default('destructive'),
  })
  .strict()
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'an MCP server needs either command (stdio) or url (streamable HTTP), not both',
  })
  .refine(
    (s) =>
      s.url === undefined || (s.args.length === 0 && Object.keys(s.env).length === 0 && s.cwd === undefined),
    {
      message: 'args, env and cwd apply to stdio servers (command), not to url',
    },
  )
  .refine((s) => s.command === undefined || Object.keys(s.headers).length === 0, {
    message: 'headers apply to HTTP servers (url), not to command',
  });

export const mcpServersSchema = z.record(
  z.string().regex(MCP_SERVER_NAME, 'an MCP server name: a-z, 0-9, - and single _, up to 32 characters'),
  mcpServerSchema,
);

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
/** One server's settings as the loaded (frozen) config holds them. */
export type McpServerConfig = DeepReadonly<z.output<typeof mcpServerSchema>>;
