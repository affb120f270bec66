import type { ApprovalGate } from '../../approval/approval-types.js';
import type { CommandGroupLedger } from './command-group-ledger.js';
import type { ProcessTable } from './process-table.js';

/**
 * Services the terminal and process tools need, added to ToolServices by declaration merging.
 * main.ts provides them; without `approvalGate` the terminal refuses every command.
 */
declare module '../../registry/tool-services.js' {
  interface ToolServices {
    /** Decides whether a command may run; the terminal never runs a command it has not asked. */
    readonly approvalGate?: ApprovalGate;
    /** Owner of background processes; without it `background: true` and the process tool are unavailable. */
    readonly processes?: ProcessTable;
    /**
     * The environment commands start from before secrets are scrubbed (main.ts passes
     * process.env; it is the only module that reads it). Absent: only a default PATH.
     */
    readonly baseEnv?: Readonly<Record<string, string | undefined>>;
    /** Records command process groups so they die with this process (killed by the next sweep). */
    readonly commandGroups?: CommandGroupLedger;
  }
}

export type { ApprovalGate, ProcessTable };
