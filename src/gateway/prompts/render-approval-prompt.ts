import type { ApprovalRequest } from '../../approval/approval-types.js';
import type { ActionPrompt } from '../../platforms/adapter.js';
import { approvalData } from './action-data.js';

/** Characters of the command shown in a prompt; a longer command can only be allowed once. */
export const PROMPT_COMMAND_CHARS = 3000;

const LABELS = {
  once: '✅ Allow once',
  session: '✅ Allow for this session',
  always: '✅ Always allow',
  deny: '❌ Deny',
} as const;

/** How a prompt speaks of what it asks about: a command to run, or a file tool's write or read. */
interface Wording {
  readonly intro: string;
  readonly unanswered: string;
  /** What "allow for this session" and "always allow" cover, when that is not obvious. */
  readonly scope?: string;
  readonly once: string;
}

function wordingOf(request: ApprovalRequest): Wording {
  switch (request.action) {
    case 'file_write':
      return {
        intro: '⚠️ The agent wants to write a file in a protected place; this needs your approval.',
        unanswered: 'No answer means nothing is written.',
        scope:
          '"Allow once" covers exactly this content. "Allow for this session" and "Always allow" let the agent write this same file again (any content) without asking; other protected files still ask.',
        once: 'make this write',
      };
    case 'file_read':
      return {
        intro: '⚠️ The agent wants to read a file that holds secrets; this needs your approval.',
        unanswered: 'No answer means it is NOT read.',
        scope:
          '"Allow for this session" and "Always allow" let the agent read this same file again without asking; other protected files still ask.',
        once: 'allow this read',
      };
    case 'discord_admin':
      return {
        intro: '⚠️ The agent wants to moderate this Discord server; this needs your approval.',
        unanswered: 'No answer means nothing changes.',
        scope:
          '"Allow for this session" and "Always allow" let the agent take this kind of moderation action again without asking.',
        once: 'allow this action once',
      };
    case 'mcp_tool':
      return {
        intro:
          '⚠️ The agent wants to call an MCP tool its server marks as destructive; this needs your approval.',
        unanswered: 'No answer means the tool is NOT called.',
        scope:
          '"Allow once" covers exactly these arguments. "Allow for this session" and "Always allow" let the agent call this same tool again (any arguments) without asking.',
        once: 'allow this call once',
      };
    default:
      return {
        intro: '⚠️ The agent wants to run a command that needs your approval.',
        unanswered: 'No answer means it will NOT run.',
        once: 'run it once',
      };
  }
}

/**
 * The chat prompt for an approval request: what will run (or be written or read), why it was
 * flagged, when it expires, and the choices. A request too long to show in full offers only
 * "allow once" and "deny", so nobody grants a standing permission for text they could not read.
 */
export function renderApprovalPrompt(
  request: ApprovalRequest,
  options: { now: number; prefix?: string },
): ActionPrompt {
  const prefix = options.prefix ?? '/';
  const shortened = request.command.length > PROMPT_COMMAND_CHARS;
  const shown = shortened ? request.command.slice(0, PROMPT_COMMAND_CHARS) : request.command;
  const permanent = request.allowPermanent && !shortened;
  const reasons =
    [...new Set(request.findings.map((f) => f.description))].join('; ') || 'flagged by the approval gate';
  const minutes = Math.max(1, Math.round((request.expiresAt - options.now) / 60_000));
  const wording = wordingOf(request);
  const lines = [
    wording.intro,
    '',
    '```',
    shown.replace(/```/g, '` ` `'),
    '```',
    ...(shortened
      ? [
          `(${request.command.length - PROMPT_COMMAND_CHARS} more characters not shown — so it can only be allowed once.)`,
        ]
      : []),
    `Why it was flagged: ${reasons}`,
    ...(permanent && wording.scope !== undefined ? [wording.scope] : []),
    `Expires in ${minutes} minute${minutes === 1 ? '' : 's'}. ${wording.unanswered}`,
  ];
  const choices = (
    permanent ? (['once', 'session', 'always', 'deny'] as const) : (['once', 'deny'] as const)
  ).map((choice) => ({
    data: approvalData(choice, request.id),
    label: LABELS[choice],
    style: choice === 'deny' ? ('danger' as const) : ('primary' as const),
  }));
  const commands = permanent
    ? `Reply ${prefix}approve to ${wording.once}, ${prefix}approve session to allow it for this session, ${prefix}approve always to allow it from now on, or ${prefix}deny to refuse (${prefix}deny <reason> tells the agent why).`
    : `Reply ${prefix}approve to ${wording.once}, or ${prefix}deny to refuse (${prefix}deny <reason> tells the agent why).`;
  return {
    text: lines.join('\n'),
    choices,
    fallbackText: `${lines.join('\n')}\n\n${commands}`,
    format: 'markdown',
  };
}

/** What the prompt becomes once decided, so a stale button can never look pending. */
export function renderApprovalOutcome(
  outcome: 'once' | 'session' | 'always' | 'deny' | 'timeout' | 'cancelled',
  by: string | undefined,
): string {
  const who = by !== undefined ? ` by ${by}` : '';
  switch (outcome) {
    case 'once':
      return `✅ Allowed once${who}. It goes ahead now.`;
    case 'session':
      return `✅ Allowed for this session${who}.`;
    case 'always':
      return `✅ Always allowed${who} (saved to the command allowlist).`;
    case 'deny':
      return `❌ Denied${who}. The command did not run.`;
    case 'timeout':
      return '⌛ Nobody answered in time — the command did NOT run. Ask again if you still want it.';
    case 'cancelled':
      return '🛑 Cancelled — the command did NOT run.';
  }
}
