import type { ApprovalOutcome } from '../../approval/approval-store.js';
import type { ApprovalChoice, ApprovalRequest, ApprovalScope } from '../../approval/approval-types.js';
import type { DecisionReport } from '../../approval/create-approval-gate.js';
import type { CommandImpl, CommandRun } from './command-context.js';
import { plural, shortCommand } from './command-text.js';
import { resumeAfterDecision } from './resume-after-decision.js';

const MAX_REASON_CHARS = 500;

interface Resolved {
  readonly request: ApprovalRequest;
  readonly report: DecisionReport;
}

/** `/approve [once|session|always] [all]`: approves the session's oldest pending request, or all. */
export const approveCommand: CommandImpl = async (run) => {
  let scope: ApprovalScope | undefined;
  let all = false;
  for (const word of run.args.toLowerCase().split(/\s+/).filter(Boolean)) {
    if (word === 'all') all = true;
    else if ((word === 'once' || word === 'session' || word === 'always') && (scope ?? word) === word) {
      scope = word;
    } else {
      return [
        `Usage: ${run.p}approve [session|always] [all] — e.g. ${run.p}approve, ${run.p}approve session all.`,
      ];
    }
  }
  return resolvePending(run, scope ?? 'once', all, undefined);
};

/**
 * `/deny [reason] [all]`: refuses the oldest pending request, or all of them (`all` as the first
 * or the last word); the reason is relayed to the model.
 */
export const denyCommand: CommandImpl = async (run) => {
  let text = run.args.trim();
  let all = false;
  if (/^all(\s|$)/i.test(text)) {
    all = true;
    text = text.slice(3).trim();
  } else if (/\sall$/i.test(text)) {
    all = true;
    text = text.slice(0, -3).trim();
  }
  const reason = text.slice(0, MAX_REASON_CHARS);
  return resolvePending(run, 'deny', all, reason === '' ? undefined : reason);
};

/** `/yolo [on|off]`: toggles (or sets) yolo for this session. Floors and deny rules still apply. */
export const yoloCommand: CommandImpl = async (run) => {
  const { approvals, store, config } = run.deps;
  const key = run.input.sessionKey;
  const word = run.args.trim().toLowerCase();
  if (word !== '' && word !== 'on' && word !== 'off') return [`Usage: ${run.p}yolo [on|off]`];
  const on = word === '' ? !(await approvals.isSessionYolo(key)) : word === 'on';
  await approvals.setSessionYolo(key, on);
  await store.updateSession(key, { yolo: on });
  if (on) {
    const waiting = (await approvals.listPending(key)).length;
    return [
      [
        '⚡ YOLO is ON for this chat: risky commands run without asking me first.',
        'Hard-blocked commands and the deny rules still never run.',
        waiting > 0
          ? `${plural(waiting, 'command')} already waiting still ${waiting === 1 ? 'needs' : 'need'} ${run.p}approve or ${run.p}deny.`
          : '',
        `Send ${run.p}yolo again to switch it off.`,
      ]
        .filter((line) => line !== '')
        .join(' '),
    ];
  }
  const global = config.approvals.yolo
    ? ' (The gateway-wide yolo setting is still on, so commands keep running without asking.)'
    : '';
  return [`🛡 YOLO is OFF for this chat: risky commands ask for your OK again.${global}`];
};

async function resolvePending(
  run: CommandRun,
  choice: ApprovalChoice,
  all: boolean,
  reason: string | undefined,
): Promise<string[]> {
  const { approvals } = run.deps;
  const { sessionKey, sender, isAdmin } = run.input;
  // Only this chat's session is listed, so a decision applies where it was asked; and it must
  // name who took it, or the requester check could not hold.
  if (sender.userId.trim() === '') return ['This answer does not say who sent it; nothing changed.'];
  const pending = await approvals.listPending(sessionKey);
  if (pending.length === 0) return ['Nothing is waiting for approval in this chat.'];
  const targets = all ? pending : pending.slice(0, 1);
  const resolved: Resolved[] = [];
  for (const request of targets) {
    const report = await approvals.decide(request.id, choice, {
      userId: sender.userId,
      admin: isAdmin,
      ...(reason === undefined ? {} : { reason }),
    });
    resolved.push({ request, report });
    if (report.status === 'recorded') await resumeAfterDecision(run, request.id, choice);
  }
  const single = resolved.length === 1 ? resolved[0] : undefined;
  return [single === undefined ? summary(run, choice, resolved) : oneLine(run, choice, single, reason)];
}

function oneLine(
  run: CommandRun,
  choice: ApprovalChoice,
  { request, report }: Resolved,
  reason?: string,
): string {
  const command = shortCommand(request.command, run.deps.config);
  switch (report.status) {
    case 'recorded': {
      if (choice === 'deny') {
        return `❌ Denied: ${command}${reason === undefined ? '' : ` — the agent is told: "${reason}"`}`;
      }
      const saved =
        report.persisted?.persisted === false
          ? ` (it could not be saved to ${report.persisted.place ?? 'config.yaml'}, so it lasts until the gateway restarts)`
          : '';
      return `✅ ${APPROVED[choice]}: ${command}${saved}`;
    }
    case 'already_decided':
      return `That request was already answered (${answerOf(report.outcome)}); nothing changed: ${command}`;
    case 'expired':
      return `Too late: that request expired, so the command did not run: ${command}`;
    case 'forbidden':
      return 'Only the person who asked for this command, or an admin, can answer it.';
    case 'scope_refused':
      return `This command can only be approved once (send ${run.p}approve), not for the session or always: ${command}`;
    case 'hash_mismatch':
    case 'not_found':
      return 'That request is no longer available; nothing changed.';
  }
}

const APPROVED: Record<Exclude<ApprovalChoice, 'deny'>, string> = {
  once: 'Approved once',
  session: 'Approved for this session (the same kind of command will not ask again here)',
  always: 'Always approved (saved to the allowlist)',
};

function summary(run: CommandRun, choice: ApprovalChoice, resolved: readonly Resolved[]): string {
  const count = (status: string) => resolved.filter(({ report }) => report.status === status).length;
  const recorded = count('recorded');
  const head =
    recorded === 0
      ? `Nothing was ${choice === 'deny' ? 'denied' : 'approved'}.`
      : choice === 'deny'
        ? `❌ Denied ${plural(recorded, 'command')}.`
        : `✅ Approved ${plural(recorded, 'command')} ${SCOPE_WORDS[choice]}.`;
  const notes = [
    count('already_decided') > 0 ? `${count('already_decided')} already answered` : '',
    count('expired') > 0 ? `${count('expired')} expired (not run)` : '',
    count('forbidden') > 0 ? `${count('forbidden')} not yours to answer` : '',
    count('scope_refused') > 0 ? `${count('scope_refused')} can only be approved once (${run.p}approve)` : '',
    count('not_found') + count('hash_mismatch') > 0
      ? `${count('not_found') + count('hash_mismatch')} gone`
      : '',
  ].filter((note) => note !== '');
  return notes.length === 0 ? head : `${head} Not changed: ${notes.join(', ')}.`;
}

const SCOPE_WORDS: Record<Exclude<ApprovalChoice, 'deny'>, string> = {
  once: 'once',
  session: 'for this session',
  always: 'always',
};

function answerOf(outcome: ApprovalOutcome): string {
  switch (outcome.state) {
    case 'approved':
      return outcome.scope === 'once' ? 'approved once' : `approved ${SCOPE_WORDS[outcome.scope]}`;
    case 'denied':
      return outcome.cause === 'cancelled' ? 'cancelled' : 'denied';
    case 'expired':
      return 'expired';
    default:
      return 'answered';
  }
}
