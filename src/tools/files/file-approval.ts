import { createHash } from 'node:crypto';
import type { ActionKind, Finding, GateAction, GateContext } from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import type { ToolContext } from '../../registry/tool-types.js';
import { gateAction } from '../terminal/gate-command.js';
import type {} from '../terminal/terminal-services.js';
import type { FileGuard } from './file-guard.js';
import { neverRead } from './file-guard.js';
import type { FileTarget } from './file-target.js';
import type { PathSensitivity } from './protected-paths.js';

/** Characters of new content or of a diff shown in an approval prompt (the digest covers the rest). */
export const PREVIEW_CHARS = 1500;

/** sha256 of the exact bytes to be written, in hex: part of the summary, so a decision binds to it. */
export function contentDigest(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Characters that could hide or fake text in a prompt: controls, bidi overrides, zero-width. */
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\r(?!\n)/gu;

/**
 * Text for a human to read before approving: invisible and control characters shown as `\u{…}`
 * (so nothing in the content can hide or reorder what is displayed), cut at `max` characters
 * with a note of how much is not shown.
 */
export function previewOf(text: string, max = PREVIEW_CHARS): string {
  const shown = text.length > max ? text.slice(0, max) : text;
  const visible = shown.replace(INVISIBLE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
  if (shown.length === text.length) return visible;
  return `${visible}\n[… ${text.length - max} more characters not shown; the sha256 covers all of it]`;
}

function gateContext(ctx: ToolContext): GateContext {
  return {
    sessionKey: ctx.sessionKey,
    userId: ctx.userId,
    cwd: ctx.cwd,
    platform: ctx.platform,
    unattended: ctx.unattended,
    // File tools touch this machine whatever backend the terminal uses.
    backend: 'local',
    signal: ctx.signal,
  };
}

/** "the gateway’s own home ($HERMES_HOME)", or for an alias "… (notes.txt is the same file as ~/.hermes-gateway/.env)". */
function reasonOf(matches: readonly PathSensitivity[], guard: FileGuard, shown: string): string {
  const parts = matches.map((match) =>
    match.aliasOf === undefined
      ? match.what
      : `${match.what}: ${shown} is the same file or directory as ${guard.show(match.aliasOf)}`,
  );
  return [...new Set(parts)].join('; ');
}

/** `~/.zshenv`, plus how the model named it when that differs (a symlink is visible to the human). */
function targetText(target: FileTarget, guard: FileGuard): string {
  const real = guard.show(target.real);
  const given = guard.show(target.absolute);
  return given === real ? real : `${real} (given as ${target.shown})`;
}

function findingOf(
  kind: ActionKind,
  target: FileTarget,
  matches: readonly PathSensitivity[],
  guard: FileGuard,
): Finding {
  const real = guard.show(target.real);
  const verb = kind === 'file_write' ? 'write' : 'read';
  return {
    // One key per file: "allow for this session" / "always" cover this file only, never a
    // different sensitive file of the same kind.
    key: `file ${verb}: ${real}`,
    description: `${reasonOf(matches, guard, real)} (${real})`,
    tier: 'dangerous',
  };
}

async function ask(
  kind: ActionKind,
  tool: string,
  target: FileTarget,
  matches: readonly PathSensitivity[],
  summary: string,
  guard: FileGuard,
  ctx: ToolContext,
): Promise<void> {
  const gate = ctx.services.approvalGate;
  const real = guard.show(target.real);
  if (gate === undefined) {
    if (matches.length === 0) return;
    throw new HermesError(
      'path_refused',
      `Refusing to ${kind === 'file_write' ? 'write' : 'read'} ${target.shown}: it is ${reasonOf(matches, guard, target.shown)}, which needs a human's approval, and no approval gate is configured here.`,
    );
  }
  const action: GateAction = {
    kind,
    subject: `${tool} ${real}`,
    denyTargets: [
      ...new Set([`${tool} ${target.real}`, `${tool} ${target.absolute}`, `${tool} ${target.shown}`]),
    ],
    summary,
    findings: matches.length === 0 ? [] : [findingOf(kind, target, matches, guard)],
  };
  await gateAction(gate, action, gateContext(ctx));
}

/** What `planWrite` found: the target and the dangerous matches a human must approve. */
export interface WritePlan {
  readonly tool: 'write_file' | 'patch';
  readonly target: FileTarget;
  readonly dangerous: readonly PathSensitivity[];
  /** True when the file's content is itself protected from reading (a credential file…). */
  readonly readProtected: boolean;
}

/**
 * Classifies a write before anything is read or written. Hardline places (everything under
 * HERMES_HOME, /proc, raw disks, and any alias of them) are refused here, in every mode.
 */
export async function planWrite(
  tool: WritePlan['tool'],
  target: FileTarget,
  guard: FileGuard,
): Promise<WritePlan> {
  const matches = await guard.writeSensitivities(target);
  const hardline = matches.filter((match) => match.write === 'hardline');
  if (hardline.length > 0) {
    throw new HermesError(
      'path_refused',
      `Refusing to write ${target.shown}: it is ${reasonOf(hardline, guard, target.shown)}. File tools may never change it, in any mode and whatever the approvals; ask the user to edit it themselves.`,
    );
  }
  const existing = matches.some((match) => match.read === 'dangerous');
  return {
    tool,
    target,
    dangerous: matches.filter((match) => match.write === 'dangerous'),
    readProtected: existing,
  };
}

/**
 * Every write goes through the gate (so `approvals.deny` globs apply to all of them); a write
 * to a dangerous place asks a human. `headline` and `body` describe the exact change and must
 * include its digest: the decision is bound to the summary, so to this content only. Returns
 * when the write may happen; throws `path_refused` or a ToolPause otherwise.
 */
export async function approveWrite(
  plan: WritePlan,
  change: { readonly headline: string; readonly body?: string },
  guard: FileGuard,
  ctx: ToolContext,
): Promise<void> {
  const head = `${plan.tool} ${targetText(plan.target, guard)}: ${change.headline}`;
  const summary = change.body === undefined || change.body === '' ? head : `${head}\n${change.body}`;
  await ask('file_write', plan.tool, plan.target, plan.dangerous, summary, guard, ctx);
}

/** The refusal for a read of the gateway's own secrets (or /proc environments, raw disks), if it is one. */
export function neverReadError(
  target: FileTarget,
  matches: readonly PathSensitivity[],
  guard: FileGuard,
): HermesError | undefined {
  const never = neverRead(matches);
  if (never === undefined) return undefined;
  return new HermesError(
    'path_refused',
    `Refusing to read ${target.shown}: it is ${reasonOf([never], guard, target.shown)}. No file tool returns its content, in any mode; it holds tokens, keys or every user's conversations.`,
  );
}

/**
 * The read check of read_file and search_files (single-file root). `matches` come from
 * `guard.readSensitivities` with the fstat of the opened file, so a link swapped in between
 * cannot slip through. The gateway's own secrets are refused; other secret files ask a human.
 */
export async function approveRead(
  tool: string,
  target: FileTarget,
  matches: readonly PathSensitivity[],
  guard: FileGuard,
  ctx: ToolContext,
): Promise<void> {
  if (matches.length === 0) return;
  const refusal = neverReadError(target, matches, guard);
  if (refusal !== undefined) throw refusal;
  await ask('file_read', tool, target, matches, `${tool} ${targetText(target, guard)}`, guard, ctx);
}
