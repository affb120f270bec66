import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';
import { HermesError } from '../errors/hermes-error.js';
import { type AllowlistSaveResult, createPermanentAllowlist, type PermanentAllowlist } from './allowlist.js';
import {
  cancelledMessage,
  deniedMessage,
  describeFindings,
  smartDeniedMessage,
  timedOutMessage,
} from './approval-messages.js';
import type { ApprovalOutcome, ApprovalStore, DecideResult } from './approval-store.js';
import type {
  ActionKind,
  ApprovalChoice,
  ApprovalGate,
  ApprovalRequest,
  ApprovalScope,
  Finding,
  GateAction,
  GateContext,
  GateDecision,
} from './approval-types.js';
import { commandHash, isRequestId, randomRequestId } from './command-hash.js';
import { commandSegments, detect, isCompoundCommand } from './detect.js';
import { actionFloorDecision, dangerousStep, floorDecision, type PolicySettings } from './policy.js';
import type { SmartReviewer } from './smart-reviewer.js';

/** Characters of a command a prompt shows; a longer command can only be approved once. */
export const PROMPT_PREVIEW_CHARS = 3000;
/** Sessions whose consecutive smart denials are remembered (oldest forgotten first). */
const DENIAL_TALLY_SESSIONS = 256;

export interface ApprovalGateDeps {
  readonly config: Config;
  readonly store: ApprovalStore;
  readonly logger: Logger;
  readonly smartReviewer?: SmartReviewer;
  /** Epoch milliseconds; must be the same clock the store was given. */
  readonly now?: () => number;
  readonly idGenerator?: () => string;
  /**
   * Defaults to one built from `config.command_allowlist` that writes back to `config.configPath`;
   * with a shared database, the composition root passes `createSharedAllowlist`.
   */
  readonly allowlist?: PermanentAllowlist;
  /** Home directory folded to `~` by detection (defaults to the detector's own). */
  readonly homeDir?: string;
}

export interface DecideOptions {
  /** Who answered. Unless `admin`, it must be the user who asked (when the request names one). */
  readonly userId: string | undefined;
  /** True when the answering user is an admin of this chat (may decide for others). */
  readonly admin?: boolean;
  /** The hash the prompt was shown for; a mismatch is refused. */
  readonly commandHash?: string;
  /** Free text for a denial (`/deny <reason>`), relayed to the model. */
  readonly reason?: string;
}

export type DecisionReport =
  | (DecideResult & { readonly persisted?: AllowlistSaveResult })
  | { readonly status: 'forbidden' };

/** How a parked request stands when the turn runner wants to resume. */
export type ResumeDecision =
  | { readonly kind: 'pending'; readonly request: ApprovalRequest }
  /** The approval cannot be used by this caller (an `once` went to the first caller): call `check` again. */
  | { readonly kind: 'reask'; readonly request: ApprovalRequest }
  | Exclude<GateDecision, { readonly kind: 'ask' }>;

export interface ResumeOptions {
  /** The command and cwd the turn is about to run; they must hash to the request's hash. */
  readonly command: string;
  readonly cwd: string;
  /** The `coalesced` flag of the `ask` decision this caller received. */
  readonly coalesced?: boolean;
}

export interface ApprovalGateController extends ApprovalGate {
  /** Records a human decision (button, /approve, /deny). First decision wins. */
  decide(requestId: string, choice: ApprovalChoice, options: DecideOptions): Promise<DecisionReport>;
  /** Cancels a pending request (= deny with cause `cancelled`). */
  cancel(requestId: string, reason?: string): Promise<DecisionReport>;
  /** Where a parked request stands, translated for the caller that parked on it. */
  resume(requestId: string, options: ResumeOptions): Promise<ResumeDecision>;
  outcome(requestId: string): Promise<ApprovalOutcome>;
  listPending(sessionKey: string): Promise<ApprovalRequest[]>;
  /**
   * Opens a once-only request for a command the smart reviewer refused, so the owner can
   * override that single run. Floors still apply; the reviewer is not asked again.
   */
  requestOverride(command: string, ctx: GateContext): Promise<GateDecision>;
  setSessionYolo(sessionKey: string, on: boolean): Promise<void>;
  isSessionYolo(sessionKey: string): Promise<boolean>;
  /** Drops session approvals, yolo and denial tally; cancels the session's pending requests. */
  clearSession(sessionKey: string): Promise<number>;
  readonly allowlist: PermanentAllowlist;
}

export function createApprovalGate(deps: ApprovalGateDeps): ApprovalGateController {
  const { config, store, logger } = deps;
  const now = deps.now ?? Date.now;
  const newId = deps.idGenerator ?? randomRequestId;
  const allowlist =
    deps.allowlist ??
    createPermanentAllowlist({ initial: config.command_allowlist, configPath: config.configPath, logger });
  const settings: PolicySettings = {
    mode: config.approvals.mode,
    yolo: config.approvals.yolo,
    unattendedMode: config.approvals.unattended_mode,
    denyRules: config.approvals.deny,
    sudoPasswordConfigured: config.terminal.sudo_password !== undefined,
  };
  const threshold = config.approvals.denial_breaker_threshold;
  const denialTally = new Map<string, number>();

  function noteDenial(sessionKey: string): number {
    const count = (denialTally.get(sessionKey) ?? 0) + 1;
    denialTally.delete(sessionKey);
    denialTally.set(sessionKey, count);
    if (denialTally.size > DENIAL_TALLY_SESSIONS) {
      const oldest = denialTally.keys().next().value;
      if (oldest !== undefined) denialTally.delete(oldest);
    }
    return count;
  }

  const detectOptions = {
    hermesHome: config.home,
    ...(deps.homeDir === undefined ? {} : { homeDir: deps.homeDir }),
  };

  function inspect(command: string) {
    return { detection: detect(command, detectOptions), segments: commandSegments(command, detectOptions) };
  }

  async function openRequest(
    command: string,
    ctx: GateContext,
    findings: readonly Finding[],
    smartDenied: boolean,
    action?: ActionKind,
  ): Promise<GateDecision> {
    const id = newId();
    if (!isRequestId(id)) throw new HermesError('approval_mismatch', `invalid approval request id "${id}"`);
    const createdAt = now();
    const request: ApprovalRequest = {
      id,
      command,
      cwd: ctx.cwd,
      findings,
      sessionKey: ctx.sessionKey,
      userId: ctx.userId,
      createdAt,
      expiresAt: createdAt + config.approvals.timeout * 1000,
      commandHash: commandHash(command, ctx.cwd),
      allowPermanent: !smartDenied && command.length <= PROMPT_PREVIEW_CHARS,
      ...(smartDenied ? { smartDenied: true } : {}),
      ...(action === undefined ? {} : { action }),
    };
    const opened = await store.open(request);
    logger.info(
      {
        requestId: opened.request.id,
        sessionKey: ctx.sessionKey,
        findings: findings.map((finding) => finding.key),
        coalesced: opened.coalesced,
      },
      'approval requested',
    );
    return { kind: 'ask', request: opened.request, coalesced: opened.coalesced };
  }

  async function check(command: string, ctx: GateContext): Promise<GateDecision> {
    const { detection, segments } = inspect(command);
    const floor = floorDecision(command, detection, segments, settings);
    if (floor !== undefined) return floor;
    const dangerous = detection.findings.filter((finding) => finding.tier === 'dangerous');
    if (dangerous.length === 0) return { kind: 'allow', reason: 'safe', findings: [] };

    const needsState = ctx.backend !== 'docker' && !settings.yolo && settings.mode !== 'off';
    const [sessionYolo, sessionGrants] = needsState
      ? await Promise.all([
          store.sessionYolo(ctx.sessionKey),
          store.sessionGrants(ctx.sessionKey),
          allowlist.sync(),
        ])
      : [false, new Set<string>()];
    const step = dangerousStep({
      command,
      findings: dangerous,
      compound: isCompoundCommand(command),
      backend: ctx.backend,
      unattended: ctx.unattended,
      platform: ctx.platform,
      sessionYolo,
      sessionGrants,
      allowlist,
      settings,
    });

    if (step.kind === 'allow' || step.kind === 'deny' || step.kind === 'ask') {
      if (step.kind === 'allow') denialTally.delete(ctx.sessionKey);
      return step;
    }
    if (step.kind === 'review') {
      if (deps.smartReviewer === undefined) {
        logger.warn('approvals.mode is smart but no reviewer is configured; asking a human');
      } else {
        const review = await deps.smartReviewer.review(command, step.findings, ctx.signal);
        if (review.verdict === 'APPROVE') {
          denialTally.delete(ctx.sessionKey);
          return { kind: 'allow', reason: 'smart_approved', findings: step.findings };
        }
        if (review.verdict === 'DENY') {
          const count = noteDenial(ctx.sessionKey);
          return {
            kind: 'deny',
            reason: 'smart_denied',
            message: smartDeniedMessage(describeFindings(step.findings), count, threshold),
            findings: step.findings,
          };
        }
        logger.debug({ note: review.note }, 'smart reviewer escalated');
      }
    }
    return openRequest(command, ctx, step.findings, false);
  }

  /**
   * A file tool's write or read with findings it computed from the table of sensitive locations.
   * Same order as `check`: floors, then yolo / mode off, then session and permanent approvals by
   * finding key, then unattended refusal, then a human. Differences: the backend is always local
   * (the file tools touch this machine, never a container), allowlist command globs never match
   * (the summary is not a command; only finding keys do), and the smart reviewer is not asked
   * (its instructions are about commands, and file content is text the model wrote): a human is.
   */
  async function checkAction(action: GateAction, ctx: GateContext): Promise<GateDecision> {
    const floor = actionFloorDecision(action, settings);
    if (floor !== undefined) return floor;
    const dangerous = action.findings.filter((finding) => finding.tier === 'dangerous');
    if (dangerous.length === 0) return { kind: 'allow', reason: 'safe', findings: [] };
    const needsState = !settings.yolo && settings.mode !== 'off';
    const [sessionYolo, sessionGrants] = needsState
      ? await Promise.all([
          store.sessionYolo(ctx.sessionKey),
          store.sessionGrants(ctx.sessionKey),
          allowlist.sync(),
        ])
      : [false, new Set<string>()];
    const step = dangerousStep({
      command: action.summary,
      findings: dangerous,
      compound: true,
      backend: 'local',
      unattended: ctx.unattended,
      platform: ctx.platform,
      sessionYolo,
      sessionGrants,
      allowlist,
      settings,
      subject: action.kind,
    });
    if (step.kind === 'allow' || step.kind === 'deny' || step.kind === 'ask') return step;
    return openRequest(action.summary, { ...ctx, backend: 'local' }, step.findings, false, action.kind);
  }

  async function record(
    requestId: string,
    choice: ApprovalChoice,
    options: DecideOptions & { cancel?: boolean },
  ) {
    const current = await store.outcome(requestId);
    if (current.state === 'unknown') return { status: 'not_found' } as const;
    const asker = current.request.userId;
    if (
      !options.cancel &&
      options.admin !== true &&
      asker !== undefined &&
      options.userId !== undefined &&
      options.userId !== asker
    ) {
      return { status: 'forbidden' } as const;
    }
    const result = await store.decide(requestId, {
      choice,
      userId: options.userId,
      decidedAt: now(),
      cause: options.cancel ? 'cancelled' : 'user',
      ...(options.commandHash === undefined ? {} : { commandHash: options.commandHash }),
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    });
    if (result.status !== 'recorded') return result;
    const { request } = current;
    logger.info(
      { requestId, sessionKey: request.sessionKey, choice, userId: options.userId },
      'approval decided',
    );
    if (choice !== 'deny') denialTally.delete(request.sessionKey);
    if (choice === 'always') {
      const persisted = await allowlist.add(request.findings.map((finding) => finding.key));
      return { ...result, persisted };
    }
    return result;
  }

  async function resume(requestId: string, options: ResumeOptions): Promise<ResumeDecision> {
    const outcome = await store.outcome(requestId);
    if (outcome.state === 'unknown') {
      return { kind: 'deny', reason: 'timeout', message: timedOutMessage('flagged command'), findings: [] };
    }
    const { request } = outcome;
    const findings = request.findings;
    const description = describeFindings(findings);
    const subject = request.action ?? 'command';
    if (commandHash(options.command, options.cwd) !== request.commandHash) {
      // A programming error upstream; never let an approval cover a different command.
      throw new HermesError('approval_mismatch', `approval ${requestId} was given for a different command`);
    }
    switch (outcome.state) {
      case 'pending':
        return { kind: 'pending', request };
      case 'expired':
        return { kind: 'deny', reason: 'timeout', message: timedOutMessage(description, subject), findings };
      case 'denied':
        return outcome.cause === 'cancelled'
          ? { kind: 'deny', reason: 'cancelled', message: cancelledMessage(description, subject), findings }
          : {
              kind: 'deny',
              reason: 'denied',
              message: deniedMessage(description, outcome.decision.reason, subject),
              findings,
            };
      case 'approved':
        return approvedFor(outcome.scope, request, options.coalesced === true);
    }
  }

  async function approvedFor(scope: ApprovalScope, request: ApprovalRequest, coalesced: boolean) {
    if (scope !== 'once') return { kind: 'allow', reason: 'decided', findings: request.findings } as const;
    if (coalesced || !(await store.claim(request.id))) return { kind: 'reask', request } as const;
    return { kind: 'allow', reason: 'decided', findings: request.findings } as const;
  }

  return {
    check,
    checkAction,
    allowlist,
    decide: (requestId, choice, options) => record(requestId, choice, options),
    cancel: (requestId, reason) =>
      record(requestId, 'deny', {
        userId: undefined,
        cancel: true,
        ...(reason === undefined ? {} : { reason }),
      }),
    resume,
    outcome: (requestId) => store.outcome(requestId),
    listPending: (sessionKey) => store.listPending(sessionKey),
    async requestOverride(command, ctx) {
      const { detection, segments } = inspect(command);
      const floor = floorDecision(command, detection, segments, settings);
      if (floor !== undefined) return floor;
      const dangerous = detection.findings.filter((finding) => finding.tier === 'dangerous');
      if (dangerous.length === 0) return { kind: 'allow', reason: 'safe', findings: [] };
      return openRequest(command, ctx, dangerous, true);
    },
    setSessionYolo: (sessionKey, on) => store.setSessionYolo(sessionKey, on),
    isSessionYolo: (sessionKey) => store.sessionYolo(sessionKey),
    async clearSession(sessionKey) {
      denialTally.delete(sessionKey);
      return store.clearSession(sessionKey, now());
    },
  };
}
