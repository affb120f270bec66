import type { ToolResult } from '../../registry/tool-types.js';
import type { ToolCallRecord } from '../store/transcript-store.js';

export interface ToolCallsOutcome {
  /** The first call that paused (approval, clarify), with its result; later calls did not run. */
  readonly paused:
    | { readonly call: ToolCallRecord; readonly result: ToolResult & { kind: 'paused' } }
    | undefined;
  /** Calls not run because of a pause or because `keepGoing` said stop. */
  readonly notRun: readonly ToolCallRecord[];
}

export interface RunToolCallsOptions {
  /** True when the tool only reads: consecutive read-only calls run at the same time. */
  readonly isReadOnly: (name: string) => boolean;
  readonly execute: (call: ToolCallRecord) => Promise<ToolResult>;
  /** Called for each finished (not paused) call as soon as it finishes, e.g. to persist it. */
  readonly onResult: (call: ToolCallRecord, result: ToolResult) => Promise<void>;
  /** Checked before each group starts; false stops (e.g. the turn was aborted). */
  readonly keepGoing: () => boolean;
}

/**
 * Runs the tool calls of one model step in order. A run of consecutive read-only calls goes in
 * parallel; any other call runs alone, after everything before it finished. A pause stops the
 * step: calls after the paused one are returned as not run (a parallel group still finishes).
 */
export async function runToolCalls(
  calls: readonly ToolCallRecord[],
  options: RunToolCallsOptions,
): Promise<ToolCallsOutcome> {
  let index = 0;
  while (index < calls.length) {
    if (!options.keepGoing()) return { paused: undefined, notRun: calls.slice(index) };
    const group = [calls[index]!];
    if (options.isReadOnly(group[0]!.function.name)) {
      while (
        index + group.length < calls.length &&
        options.isReadOnly(calls[index + group.length]!.function.name)
      ) {
        group.push(calls[index + group.length]!);
      }
    }
    const settled = await Promise.all(
      group.map(async (call) => {
        const result = await options.execute(call);
        if (result.kind !== 'paused') await options.onResult(call, result);
        return { call, result };
      }),
    );
    index += group.length;
    for (const { call, result } of settled) {
      if (result.kind === 'paused') {
        const notRun = [
          ...settled
            .filter((entry) => entry.result.kind === 'paused' && entry.call !== call)
            .map((entry) => entry.call),
          ...calls.slice(index),
        ];
        return { paused: { call, result }, notRun };
      }
    }
  }
  return { paused: undefined, notRun: [] };
}
