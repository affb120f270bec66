import { HeadTailCollector } from './cap-output.js';
import { type SpawnPlan, type StartGroupOptions, startGroup } from './spawn-group.js';

export interface ForegroundOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Characters of output kept (head and tail). */
  readonly maxOutputChars: number;
  readonly killGraceMs?: number;
  readonly ledger?: StartGroupOptions['ledger'];
}

export interface ForegroundResult {
  /** Output (stdout and stderr interleaved), capped, not yet cleaned. */
  readonly output: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

/**
 * Runs a plan to completion. On timeout or abort the whole process group is terminated
 * (SIGTERM, then SIGKILL after the grace period) and the result says why it ended.
 */
export async function runForeground(plan: SpawnPlan, options: ForegroundOptions): Promise<ForegroundResult> {
  const collector = new HeadTailCollector(options.maxOutputChars);
  const group = await startGroup(plan, {
    onOutput: (text) => collector.push(text),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(options.ledger !== undefined ? { ledger: options.ledger } : {}),
  });
  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void group.terminate();
  }, options.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    void group.terminate();
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await group.exited;
    return { output: collector.text(), exitCode: exit.exitCode, signal: exit.signal, timedOut, aborted };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}
