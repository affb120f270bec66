import { z } from 'zod';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { runTerminal } from './terminal/run-terminal.js';
import { terminalPlacement } from './terminal/terminal-placement.js';
import type {} from './terminal/terminal-services.js';

const parameters = z.object({
  command: z.string().min(1).describe('The shell command to run (bash -c on the configured backend).'),
  background: z
    .boolean()
    .default(false)
    .describe(
      'Start the command and return at once with a session_id; follow it with the process tool. Use for servers, watchers and long jobs.',
    ),
  timeout: z
    .number()
    .int()
    .positive()
    .max(86_400)
    .optional()
    .describe(
      'Seconds before the command and everything it started are killed (default terminal.timeout, 180). For a background command: its maximum lifetime (default none).',
    ),
  workdir: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Working directory for this command; relative paths resolve against the session working directory.',
    ),
});

export const terminalTool = defineTool({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a shell command and get its output (stdout and stderr together, long output shortened in the middle) and exit code. ' +
    'Commands run non-interactively: stdin is closed, so pass flags such as -y instead of expecting prompts. ' +
    'Dangerous commands need a human approval first; some are never allowed. ' +
    'Set background: true for long-running commands and manage them with the process tool.',
  parameters,
  checkFn: (services, scope): CheckResult => {
    if (services.approvalGate === undefined) return { ok: false, reason: 'approval gate not configured' };
    const placement = terminalPlacement(services, scope?.unattended ?? false);
    return placement.ok ? { ok: true } : { ok: false, reason: placement.reason ?? 'backend unusable' };
  },
  handler: (args, ctx) => runTerminal(args, ctx),
});
