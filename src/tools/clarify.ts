import { z } from 'zod';
import { defineTool } from '../registry/define-tool.js';
import { ToolPause } from '../registry/tool-pause.js';

/** What a parked clarify call carries; the chat side shows it and resumes the turn with the answer. */
export interface ClarifyRequest {
  readonly question: string;
  readonly choices: readonly string[];
}

export const clarifyTool = defineTool({
  name: 'clarify',
  toolset: 'clarify',
  description:
    'Ask the user a question when the request is ambiguous or a decision is theirs to make. Offer up to 4 short choices when the answer is one of a few options; the user may still answer freely. The turn pauses until the user answers.',
  emoji: '❓',
  parameters: z.object({
    question: z.string().trim().min(1).max(2000).describe('The question, phrased for the user.'),
    choices: z
      .array(z.string().trim().min(1).max(100))
      .max(4)
      .optional()
      .describe('Up to 4 suggested answers.'),
  }),
  handler: (args, ctx) => {
    if (ctx.unattended) {
      return {
        answered: false,
        note: 'Nobody is present to answer questions in this session. Proceed with your best judgement and state the assumptions you made.',
      };
    }
    const request: ClarifyRequest = { question: args.question, choices: args.choices ?? [] };
    throw new ToolPause(
      'clarify',
      request,
      'The question could not be delivered to the user in this context. Proceed with your best judgement and state your assumptions.',
    );
  },
});
