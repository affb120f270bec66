/** `sudo` where a command starts: line start, after `;` `&` `|` `(` `{` a backtick or `$(`. */
const SUDO_AT_COMMAND_POSITION = /(^|[\n;&|({`]|\$\()([ \t]*)sudo(?=[ \t]|$)/gm;

export interface SudoPlan {
  readonly command: string;
  /** Written once to the command's stdin; undefined when the command does not use sudo. */
  readonly input: string | undefined;
}

/**
 * With a configured sudo password, makes each `sudo` read it from stdin without a prompt
 * (`sudo -S -p ''`) and returns the password line to feed. The password never appears on a
 * command line or in the command text; without one the command is returned unchanged.
 */
export function applySudoPassword(command: string, password: string | undefined): SudoPlan {
  if (password === undefined || password === '') return { command, input: undefined };
  let count = 0;
  const rewritten = command.replace(SUDO_AT_COMMAND_POSITION, (_match, before: string, space: string) => {
    count += 1;
    return `${before}${space}sudo -S -p ''`;
  });
  return count === 0 ? { command, input: undefined } : { command: rewritten, input: `${password}\n` };
}
