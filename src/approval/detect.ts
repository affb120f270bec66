import { homedir } from 'node:os';
import type { DetectResult } from './approval-types.js';
import { DetectionRun } from './detect-engine.js';
import { HARDLINE } from './detect-keys.js';
import { type NormalizeOptions, normalizeCommand, shellViewOfCommand } from './normalize-command.js';

export { DANGEROUS, HARDLINE, readToolExecKey } from './detect-keys.js';

/** Commands longer than this (in UTF-16 code units) are refused unread: hardline "parser limit". */
export const DEFAULT_MAX_COMMAND_LENGTH = 65_536;

/** Total characters scanned across nested payloads, as a multiple of the command's length. */
const BUDGET_FACTOR = 3;
const MIN_BUDGET = 1 << 18;

export interface DetectOptions {
  /** Absolute home directory folded to `~` (default: the OS home of this process). */
  readonly homeDir?: string;
  /** Absolute HERMES_HOME folded to `~/.hermes-gateway` (default: `<homeDir>/.hermes-gateway`). */
  readonly hermesHome?: string;
  /** Longest command read; longer ones are hardline (default 65,536). */
  readonly maxLength?: number;
}

/**
 * The terminal runs each command as `bash -c COMMAND`: `$0` is the shell, `$1`, `$@`… are empty.
 */
const TOP_LEVEL_POSITIONAL: readonly string[] = ['bash'];

function normalizeOptions(options: DetectOptions): NormalizeOptions {
  let homeDir = options.homeDir;
  if (homeDir === undefined) {
    try {
      homeDir = homedir();
    } catch {
      homeDir = undefined;
    }
  }
  return {
    ...(homeDir === undefined ? {} : { homeDir }),
    ...(options.hermesHome === undefined ? {} : { hermesHome: options.hermesHome }),
  };
}

function limitResult(): DetectResult {
  const key = HARDLINE.parserLimit;
  return { verdict: 'hardline', findings: [{ key, description: key, tier: 'hardline' }] };
}

function budgetFor(length: number): number {
  return Math.max(MIN_BUDGET, length * BUDGET_FACTOR);
}

/**
 * Classifies a shell command: `hardline` (never runs), `dangerous` (needs approval) or `safe`.
 * Never throws; work is linear in the command length. Findings are deduplicated by key,
 * hardline ones first.
 */
export function detect(command: string, options: DetectOptions = {}): DetectResult {
  try {
    if (typeof command !== 'string') {
      const key = HARDLINE.malformed;
      return { verdict: 'hardline', findings: [{ key, description: key, tier: 'hardline' }] };
    }
    const maxLength = options.maxLength ?? DEFAULT_MAX_COMMAND_LENGTH;
    if (command.length > maxLength) return limitResult();
    const run = new DetectionRun(normalizeOptions(options), budgetFor(command.length));
    run.scanCommand(command, 0, true, TOP_LEVEL_POSITIONAL);
    return run.result();
  } catch {
    // Fail closed: an internal error must never let a command through.
    return limitResult();
  }
}

/**
 * Each simple command at a command position, after normalisation and wrapper peeling, nested
 * payloads (`bash -c`, `eval`, substitutions…) included, in source order and without
 * duplicates. Words are joined by single spaces (not re-quoted) and lower-cased except
 * option words. A privilege wrapper (`sudo`, `doas`, `pkexec`) yields a segment of its own,
 * with its options, before the command it runs: `sudo -S -u x rm f` → `sudo -S -u x rm f`, `rm f`.
 */
export function commandSegments(command: string, options: DetectOptions = {}): string[] {
  try {
    if (typeof command !== 'string') return [];
    const maxLength = options.maxLength ?? DEFAULT_MAX_COMMAND_LENGTH;
    if (command.length > maxLength) return [];
    const sink: string[] = [];
    const run = new DetectionRun(normalizeOptions(options), budgetFor(command.length), sink);
    run.scanCommand(command, 0, true, TOP_LEVEL_POSITIONAL);
    return [...new Set(sink)];
  } catch {
    return [];
  }
}

/**
 * True when the command is not one plain simple command: an unquoted `;`, `&`, `|`, `<`, `>`,
 * backtick, `$(` or a newline anywhere (quoted or not), or quoting that never closes.
 * Allowlist globs and exact entries apply only to non-compound commands.
 */
export function isCompoundCommand(command: string): boolean {
  if (typeof command !== 'string') return true;
  if (command.includes('\n') || command.includes('\r')) return true;
  return hasOperators(normalizeCommand(command)) || hasOperators(shellViewOfCommand(command));
}

function hasOperators(text: string): boolean {
  let quote = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = '';
    } else if (quote === '$') {
      if (c === '\\') i += 1;
      else if (c === "'") quote = '';
    } else if (quote === '"') {
      if (c === '\\') i += 1;
      else if (c === '"') quote = '';
      else if (c === '`' || (c === '$' && text[i + 1] === '(')) return true;
    } else if (c === '\\') {
      i += 1;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '$' && text[i + 1] === "'") {
      quote = '$';
      i += 1;
    } else if (c === ';' || c === '&' || c === '|' || c === '<' || c === '>' || c === '`') {
      return true;
    } else if (c === '$' && text[i + 1] === '(') {
      return true;
    }
  }
  return quote !== '';
}
