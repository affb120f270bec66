/** The streams a CLI command writes to; tests pass their own. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stdout is a terminal (human-friendly output). */
  readonly isTty: boolean;
}

/** Exit codes shared by every command. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
