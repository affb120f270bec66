import { createInterface } from 'node:readline';
import type { DetectResult } from '../approval/approval-types.js';
import { detect } from '../approval/detect.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './cli-io.js';

export interface ApprovalCheckIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export interface ApprovalCheckOptions {
  /** HERMES_HOME, folded to `~/.hermes-gateway` like the gate does. */
  readonly hermesHome?: string;
  /** Home directory folded to `~` (default: the OS home). */
  readonly homeDir?: string;
}

const USAGE = `usage: hermes-gateway approval check [--json] [--stdin] [--] [COMMAND...]

Shows how the approval gate classifies a shell command: hardline (never runs),
dangerous (needs approval) or safe, with the findings behind the verdict.

  COMMAND...  the words are joined with spaces into one command
  --json      print {"command", "verdict", "findings"} as one JSON line
  --stdin     read one JSON-encoded string per line (a command may hold newlines)
              and answer one JSON line per input line, in order; blank lines are skipped
  --          end of options (needed when the command starts with '-')

Exit status: 0 whatever the verdicts, 2 for usage errors or unreadable --stdin lines.
`;

interface ParsedArgs {
  readonly json: boolean;
  readonly stdin: boolean;
  readonly help: boolean;
  readonly words: readonly string[];
}

function parseArgs(argv: readonly string[]): ParsedArgs | string {
  let json = false;
  let stdin = false;
  let help = false;
  let i = 0;
  for (; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (arg === '--json') json = true;
    else if (arg === '--stdin') stdin = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg.startsWith('-') && arg !== '-')
      return `unknown option '${arg}' (use -- before a command that starts with '-')`;
    else break;
  }
  return { json, stdin, help, words: argv.slice(i) };
}

function toJson(command: string, result: DetectResult): string {
  const findings = result.findings.map(({ key, description, tier }) => ({ key, description, tier }));
  return `${JSON.stringify({ command, verdict: result.verdict, findings })}\n`;
}

function toText(result: DetectResult): string {
  const lines = [
    result.verdict,
    ...result.findings.map((finding) => `  ${finding.tier}: ${finding.description}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function checkStdin(io: ApprovalCheckIo, check: (command: string) => DetectResult): Promise<number> {
  let status = EXIT_OK;
  let lineNumber = 0;
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      const line = raw.trim();
      if (line === '') continue;
      let command: unknown;
      try {
        command = JSON.parse(line);
      } catch {
        command = undefined;
      }
      if (typeof command !== 'string') {
        io.stdout(`${JSON.stringify({ error: `line ${lineNumber}: expected a JSON-encoded string` })}\n`);
        status = EXIT_USAGE;
        continue;
      }
      io.stdout(toJson(command, check(command)));
    }
  } catch (error) {
    io.stderr(
      `approval check: cannot read stdin: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return EXIT_FAILURE;
  } finally {
    lines.close();
  }
  return status;
}

/**
 * `hermes-gateway approval check [--json] [--stdin] [COMMAND...]`. Exit code 0 whatever the
 * verdicts; 2 for usage errors and for --stdin lines that are not JSON strings (each such
 * line is answered with `{"error": …}` and reading goes on).
 */
export async function runApprovalCheck(
  argv: readonly string[],
  io: ApprovalCheckIo,
  options: ApprovalCheckOptions = {},
): Promise<number> {
  const parsed = parseArgs(argv);
  if (typeof parsed === 'string') {
    io.stderr(`approval check: ${parsed}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (parsed.help) {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  const check = (command: string): DetectResult =>
    detect(command, {
      ...(options.hermesHome === undefined ? {} : { hermesHome: options.hermesHome }),
      ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    });
  if (parsed.stdin) {
    if (parsed.words.length > 0) {
      io.stderr(`approval check: give either COMMAND or --stdin, not both\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    return checkStdin(io, check);
  }
  if (parsed.words.length === 0) {
    io.stderr(`approval check: no command given\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const command = parsed.words.join(' ');
  const result = check(command);
  io.stdout(parsed.json ? toJson(command, result) : toText(result));
  return EXIT_OK;
}
