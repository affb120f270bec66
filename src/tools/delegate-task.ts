import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import type {} from './agent/agent-services.js';

export const delegateTaskTool = defineTool({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🔀',
  description:
    'Hand a self-contained piece of work to a sub-agent and get its report back as text. ' +
    'The sub-agent starts fresh: it sees only the goal and context you write, not this conversation, ' +
    'so include every detail it needs (paths, names, constraints, what the report should contain). ' +
    'It works on its own with your tools or a narrower set (toolsets), cannot ask the user anything, ' +
    'and dangerous commands are refused for it. Use it for focused research or multi-step side tasks whose details you do not need to see.',
  parameters: z.object({
    goal: z
      .string()
      .trim()
      .min(1)
      .max(4_000)
      .describe('What the sub-agent should achieve, stated completely.'),
    context: z
      .string()
      .max(20_000)
      .optional()
      .describe('Background the sub-agent needs: facts, file paths, earlier findings, constraints.'),
    toolsets: z
      .array(z.string().trim().min(1).max(64))
      .max(10)
      .optional()
      .describe(
        "Toolsets (e.g. 'web', 'file') or tool names for the sub-agent, narrower than yours. Default: your own tools.",
      ),
  }),
  checkFn: (services): CheckResult =>
    services.subAgent === undefined ? { ok: false, reason: 'sub-agents not configured' } : { ok: true },
  handler: async (args, ctx) => {
    const subAgent = ctx.services.subAgent;
    if (subAgent === undefined)
      throw new HermesError('usage', 'Delegation is not available in this gateway.');
    const result = await subAgent.run({
      goal: args.goal,
      context: args.context,
      toolsets: args.toolsets,
      parentTaskId: ctx.taskId,
      sessionKey: ctx.sessionKey,
      userId: ctx.userId,
      platform: ctx.platform,
      cwd: ctx.cwd,
      signal: ctx.signal,
    });
    return {
      status: result.completed ? 'completed' : 'incomplete',
      report: result.text,
      iterations: result.iterations,
      tool_calls: result.toolCalls,
    };
  },
});
