import type { RuleContext } from './detect-context.js';
import { isAcceptedProgram } from './detect-programs.js';
import type { ShellWord } from './shell-types.js';

export { SSH_PROGRAMS } from './detect-programs.js';

/** Shared by the rules for options that name a program or a file to write. */

/** Scans `command` (the value of an option) and flags it unless it runs one accepted program. */
export function optionCommand(
  ctx: RuleContext,
  command: string,
  word: ShellWord | undefined,
  accepted: readonly string[],
  key: string,
): void {
  ctx.scanShell(command);
  if (word?.expanded === true || !isAcceptedProgram(command, accepted)) ctx.danger(key);
}

/** Outside the working tree, or not known: absolute, home-relative, `..`, or an expansion. */
export function writesOutside(path: string, expanded: boolean): boolean {
  if (expanded) return true;
  if (path === '/dev/stdout' || path === '/dev/stderr' || path === '/dev/null') return false;
  return path.startsWith('/') || path.startsWith('~') || path.split('/').includes('..');
}
