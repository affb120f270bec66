import { z } from 'zod';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { runProcessAction } from './terminal/process-actions.js';
import type {} from './terminal/terminal-services.js';

const parameters = z.object({
  action: z
    .enum(['list', 'poll', 'log', 'wait', 'kill'])
    .describe(
      "list: this session's background processes; poll: status and output since the last poll; log: output lines with offset/limit; wait: block until it ends or timeout; kill: stop it and its children.",
    ),
  session_id: z
    .string()
    .min(1)
    .optional()
    .describe('The session_id returned by terminal(background=true). Required for every action except list.'),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Seconds to block for 'wait' (bounded by terminal.timeout)."),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("First line for 'log' (0-based; default: the last 200 lines)."),
  limit: z.number().int().positive().optional().describe("Lines to return for 'log' (default 200)."),
});

export const processTool = defineTool({
  name: 'process',
  toolset: 'terminal',
  emoji: '⚙️',
  description:
    'Manage background processes started with terminal(background=true): list, poll for new output, read the log, wait for the end, or kill. ' +
    'Only processes started in this conversation are visible.',
  parameters,
  checkFn: (services): CheckResult =>
    services.processes === undefined ? { ok: false, reason: 'process table not configured' } : { ok: true },
  handler: (args, ctx) => runProcessAction(args, ctx),
});
