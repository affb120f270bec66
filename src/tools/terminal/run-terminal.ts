import { stat } from 'node:fs/promises';
import { HermesError } from '../../errors/hermes-error.js';
import { secretScrubberFor } from '../../registry/secret-scrubber.js';
import type { ToolContext } from '../../registry/tool-types.js';
import { approvedByPerson } from './approved-by-person.js';
import type { BackendHost } from './backends/backend-types.js';
import { localBackend } from './backends/local.js';
import { selectBackend } from './backends/select-backend.js';
import { cleanOutput } from './clean-output.js';
import { gateCommand } from './gate-command.js';
import { runForeground } from './run-foreground.js';
import { childEnv } from './scrub-env.js';
import { applySudoPassword } from './sudo-password.js';
import { terminalPlacement } from './terminal-placement.js';
import type {} from './terminal-services.js';

export interface TerminalArgs {
  readonly command: string;
  readonly background: boolean;
  readonly timeout?: number | undefined;
  readonly workdir?: string | undefined;
}

/** Longest foreground timeout, seconds, unless terminal.timeout is configured higher. */
export const FOREGROUND_MAX_TIMEOUT_S = 600;

export interface ForegroundReply {
  readonly output: string;
  readonly exit_code: number | null;
  readonly error: string | null;
  readonly signal?: string;
  readonly timed_out?: true;
}

export interface BackgroundReply {
  readonly session_id: string;
  readonly pid: number;
  readonly status: 'running';
  readonly hint: string;
}

function aborted(): Error {
  const error = new Error('command aborted: the turn was stopped; its process group was killed');
  error.name = 'AbortError';
  return error;
}

/** The terminal tool: gate, then run in the configured backend, foreground or background. */
export async function runTerminal(
  args: TerminalArgs,
  ctx: ToolContext,
): Promise<ForegroundReply | BackgroundReply> {
  const { services } = ctx;
  const gate = services.approvalGate;
  if (gate === undefined) {
    throw new HermesError(
      'command_denied',
      'terminal refused: approval gate not configured, and no command runs without it. Tell the operator.',
    );
  }
  const terminal = services.config.terminal;
  const placement = terminalPlacement(services, ctx.unattended);
  if (!placement.ok) {
    throw new HermesError(
      'exec_failed',
      `terminal unavailable${ctx.unattended ? ' in unattended sessions' : ''}: ${placement.reason ?? 'backend unusable'}`,
    );
  }
  const backend = selectBackend(placement.name);
  const host: BackendHost = { hermesHome: services.config.home, owner: services };
  const { env, passedThrough } = childEnv(services.baseEnv, terminal.env_passthrough, backend.clientEnvNames);

  const timeoutS = args.timeout ?? terminal.timeout;
  const maxForeground = Math.max(FOREGROUND_MAX_TIMEOUT_S, terminal.timeout);
  if (!args.background && timeoutS > maxForeground) {
    throw new HermesError(
      'exec_failed',
      `timeout ${timeoutS} s is above the foreground limit of ${maxForeground} s; run long commands with background: true`,
    );
  }
  if (args.background && services.processes === undefined) {
    throw new HermesError(
      'exec_failed',
      'background processes are not available here (no process table configured)',
    );
  }

  const workdir = backend.resolveWorkdir(args.workdir, ctx.cwd, terminal);
  const allowed = await gateCommand(gate, args.command, {
    sessionKey: ctx.sessionKey,
    userId: ctx.userId,
    cwd: workdir ?? (backend.name === 'ssh' ? '~' : '.'),
    platform: ctx.platform,
    unattended: ctx.unattended,
    backend: backend.name,
    signal: ctx.signal,
  });
  if (ctx.signal.aborted) throw aborted();
  // An approval never moves a command out of the sandbox, unless the operator said it may.
  const runner =
    backend.name === 'sandbox' && terminal.approved_backend === 'local' && approvedByPerson(allowed)
      ? localBackend
      : backend;
  if ((runner.name === 'local' || runner.name === 'sandbox') && workdir !== undefined)
    await assertDirectory(workdir);

  const sudo = applySudoPassword(args.command, terminal.sudo_password);
  const plan = runner.plan({
    command: sudo.command,
    workdir,
    env,
    passedThrough,
    input: sudo.input,
    terminal,
    sessionCwd: ctx.cwd,
    host,
  });

  if (args.background && services.processes !== undefined) {
    const proc = await services.processes.start({
      sessionKey: ctx.sessionKey,
      plan,
      command: args.command,
      cwd: workdir,
      backend: runner.name,
      ...(args.timeout !== undefined ? { lifetimeMs: args.timeout * 1000 } : {}),
    });
    return {
      session_id: proc.id,
      pid: proc.info().pid,
      status: 'running',
      hint: `Follow it with process(action='poll' | 'log' | 'wait' | 'kill', session_id='${proc.id}').`,
    };
  }

  const result = await runForeground(plan, {
    timeoutMs: timeoutS * 1000,
    signal: ctx.signal,
    maxOutputChars: terminal.max_output_chars,
    ...(services.commandGroups !== undefined ? { ledger: services.commandGroups } : {}),
  });
  if (result.aborted) throw aborted();
  const output = cleanOutput(result.output, secretScrubberFor(services.config)).trim();
  const reply: ForegroundReply = {
    output,
    exit_code: result.exitCode,
    error: result.timedOut
      ? `Command timed out after ${timeoutS} s; its whole process group was killed. For long-running commands use background: true.`
      : null,
    ...(result.signal !== null ? { signal: result.signal } : {}),
    ...(result.timedOut ? { timed_out: true as const } : {}),
  };
  return reply;
}

async function assertDirectory(path: string): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory)
    throw new HermesError('exec_failed', `working directory does not exist or is not a directory: ${path}`);
}
