import { HermesError } from '../../errors/hermes-error.js';
import { secretScrubberFor } from '../../registry/secret-scrubber.js';
import type { ToolContext } from '../../registry/tool-types.js';
import type { BackgroundProcess } from './background-process.js';
import { capOutput } from './cap-output.js';
import { cleanOutput } from './clean-output.js';
import type {} from './terminal-services.js';

export interface ProcessArgs {
  readonly action: 'list' | 'poll' | 'log' | 'wait' | 'kill';
  readonly session_id?: string | undefined;
  readonly timeout?: number | undefined;
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
}

/** Lines `log` returns when no limit is given (and from the end when no offset is given). */
export const DEFAULT_LOG_LINES = 200;
/** Characters of the command shown per process by `list`. */
const LIST_COMMAND_CHARS = 200;

function status(proc: BackgroundProcess, now: number) {
  const info = proc.info();
  return {
    session_id: info.id,
    pid: info.pid,
    status: info.status,
    exit_code: info.exitCode,
    ...(info.signal !== null ? { signal: info.signal } : {}),
    runtime_seconds: Math.round(((info.endedAt ?? now) - info.startedAt) / 1000),
  };
}

/** Runs one `process` action against the calling session's background processes. */
export async function runProcessAction(
  args: ProcessArgs,
  ctx: ToolContext,
): Promise<Record<string, unknown>> {
  const table = ctx.services.processes;
  if (table === undefined)
    throw new HermesError('exec_failed', 'background processes are not available here');
  const maxChars = ctx.services.config.terminal.max_output_chars;
  const secrets = secretScrubberFor(ctx.services.config);
  const clean = (text: string): string => cleanOutput(capOutput(text, maxChars), secrets);

  if (args.action === 'list') {
    const now = Date.now();
    return {
      processes: table.list(ctx.sessionKey).map((proc) => ({
        ...status(proc, now),
        command:
          proc.command.length > LIST_COMMAND_CHARS
            ? `${proc.command.slice(0, LIST_COMMAND_CHARS)}…`
            : proc.command,
        started_at: new Date(proc.startedAt).toISOString(),
      })),
    };
  }

  if (args.session_id === undefined) {
    throw new HermesError('process_unknown', `session_id is required for action '${args.action}'`);
  }
  const proc = table.get(ctx.sessionKey, args.session_id);
  if (proc === undefined) {
    throw new HermesError(
      'process_unknown',
      `no such process: ${args.session_id}. Use process(action='list') to see this conversation's background processes.`,
    );
  }

  switch (args.action) {
    case 'poll': {
      const fresh = proc.readNew();
      return {
        ...status(proc, Date.now()),
        output: clean(fresh.text),
        ...(fresh.lost > 0 ? { lost_chars: fresh.lost } : {}),
      };
    }
    case 'wait': {
      const bound = ctx.services.config.terminal.timeout;
      const seconds = Math.min(args.timeout ?? bound, bound);
      const finished = await proc.waitFor(seconds * 1000, ctx.signal);
      const fresh = proc.readNew();
      return {
        ...status(proc, Date.now()),
        output: clean(fresh.text),
        ...(fresh.lost > 0 ? { lost_chars: fresh.lost } : {}),
        ...(finished ? {} : { timed_out: true, note: `still running after waiting ${seconds} s` }),
      };
    }
    case 'log':
      return { ...status(proc, Date.now()), ...readLines(proc, args, clean) };
    case 'kill': {
      const wasRunning = proc.running;
      await proc.kill();
      return {
        ...status(proc, Date.now()),
        ...(wasRunning ? {} : { note: 'the process had already finished' }),
      };
    }
  }
}

function readLines(
  proc: BackgroundProcess,
  args: ProcessArgs,
  clean: (text: string) => string,
): { output: string; total_lines: number; offset: number; lines: number; truncated_before?: true } {
  const text = proc.output.text();
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const limit = args.limit ?? DEFAULT_LOG_LINES;
  const offset = Math.min(args.offset ?? Math.max(0, lines.length - limit), lines.length);
  const chosen = lines.slice(offset, offset + limit);
  return {
    output: clean(chosen.join('\n')),
    total_lines: lines.length,
    offset,
    lines: chosen.length,
    ...(proc.output.start > 0 ? { truncated_before: true as const } : {}),
  };
}
