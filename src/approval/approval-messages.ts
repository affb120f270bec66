/**
 * What the model is told when a command does not run. Written for a model: plain, explicit about
 * what it must not do next, and never suggesting that rewording a refused command is a way round
 * the refusal.
 */

import type { ActionKind } from './approval-types.js';

const NO_WORKAROUND =
  'Do not retry it, do not rephrase it, and do not try to reach the same result with a different command.';

/** What was held back: a shell command (the default) or a file tool's write or read. */
export type ApprovalSubject = 'command' | ActionKind;

const NOUN: Record<ApprovalSubject, string> = {
  command: 'command',
  file_write: 'file write',
  file_read: 'file read',
  discord_admin: 'Discord admin action',
  mcp_tool: 'MCP tool call',
};

/** "this command" / "this file write" / "this file read". */
export function subjectNoun(subject: ApprovalSubject): string {
  return NOUN[subject];
}

/** The same warning for a file tool: no other tool, path or link may be used to get round it. */
const NO_FILE_WORKAROUND =
  'Do not retry it, do not try another path, link or copy of the same file, and do not use the terminal or another tool to reach the same result.';

/** A moderation action: no other tool, command or wording may be used to get the same effect. */
const NO_ADMIN_WORKAROUND =
  'Do not retry it, do not rephrase it, and do not use another tool or a command to reach the same result.';

function workaround(subject: ApprovalSubject): string {
  if (subject === 'command') return NO_WORKAROUND;
  return subject === 'discord_admin' || subject === 'mcp_tool' ? NO_ADMIN_WORKAROUND : NO_FILE_WORKAROUND;
}

export function hardlineMessage(description: string, subject: ApprovalSubject = 'command'): string {
  return (
    `REFUSED (never allowed): ${description}. This ${NOUN[subject]} is on the fixed list of operations the agent ` +
    'can never run, in any mode: yolo, approvals.mode off and approvals cannot unlock it. ' +
    `${workaround(subject)} If the user really wants it, they must run it themselves in a terminal outside the agent.`
  );
}

export function denyRuleMessage(rule: string, subject: ApprovalSubject = 'command'): string {
  return (
    `REFUSED (deny rule): this ${NOUN[subject]} matches the deny rule '${rule}' that the operator set in ` +
    'approvals.deny (config.yaml). Deny rules apply in every mode, yolo included, and the user has ' +
    `forbidden this explicitly. ${workaround(subject)} If the user really wants it, they must run it ` +
    'themselves outside the agent.'
  );
}

export function sudoStdinMessage(): string {
  return (
    "REFUSED: 'sudo -S' (reading a sudo password from standard input) is not allowed, because piping " +
    'passwords into sudo is a way to guess them. Do not pass passwords to sudo yourself. If this ' +
    'deployment should run sudo, the operator configures terminal.sudo_password (SUDO_PASSWORD) and ' +
    'the terminal supplies it; otherwise ask the user to run the command.'
  );
}

export function deniedMessage(
  description: string,
  reason: string | undefined,
  subject: ApprovalSubject = 'command',
): string {
  const because = reason !== undefined && reason.trim() !== '' ? ` The user said: "${reason.trim()}".` : '';
  const done = subject === 'command' ? 'was not run' : 'was not carried out';
  return (
    `DENIED by the user: the ${NOUN[subject]} (${description}) ${done}.${because} The user did NOT consent. ` +
    `${workaround(subject)} Continue without it or ask the user what they want instead.`
  );
}

export function timedOutMessage(description: string, subject: ApprovalSubject = 'command'): string {
  return (
    `NOT RUN: nobody answered the approval request for this ${NOUN[subject]} (${description}) before it ` +
    'expired. Silence is not consent: the user has NOT agreed to it. ' +
    `${workaround(subject)} Stop this line of work, take no other destructive or irreversible step, and wait ` +
    'for the user to reply.'
  );
}

export function cancelledMessage(description: string, subject: ApprovalSubject = 'command'): string {
  return (
    `NOT RUN: the approval request for this ${NOUN[subject]} (${description}) was cancelled (the turn was ` +
    `stopped or the session reset). The user has NOT agreed to it. ${workaround(subject)} Wait for the user.`
  );
}

export function unattendedMessage(
  description: string,
  platform: string | undefined,
  subject: ApprovalSubject = 'command',
): string {
  const where = platform === undefined ? 'an unattended session' : `an unattended session (${platform})`;
  const noun = NOUN[subject];
  return (
    `REFUSED: this ${noun} was flagged as dangerous (${description}), and it came from ${where} where ` +
    `no person is present to approve it. Find another way to do the task that avoids this ${noun}. ` +
    'An operator who wants dangerous commands to run without approval in unattended sessions can set ' +
    'approvals.unattended_mode: approve in config.yaml.'
  );
}

export function smartDeniedMessage(
  description: string,
  consecutiveDenials: number,
  threshold: number,
): string {
  const base =
    `REFUSED by the automatic security review: the command (${description}) was judged harmful and was ` +
    `not run. ${NO_WORKAROUND}`;
  if (consecutiveDenials < threshold) return base;
  return (
    `${base} STOP: ${consecutiveDenials} commands in a row were refused by the security review. Do not ` +
    'try more variations of this operation. Tell the user what you were trying to do and that it was ' +
    'blocked; they can run it themselves or approve it explicitly.'
  );
}

export function expiredDecisionText(): string {
  return 'This approval request had already expired; the answer changed nothing and the command did not run.';
}

/** One line describing the findings of a request, for messages and prompts. */
export function describeFindings(findings: readonly { readonly description: string }[]): string {
  const unique = [...new Set(findings.map((finding) => finding.description))];
  return unique.length === 0 ? 'flagged command' : unique.join('; ');
}
