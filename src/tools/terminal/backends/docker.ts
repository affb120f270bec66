import { posix } from 'node:path';
import { HermesError } from '../../../errors/hermes-error.js';
import { findExecutable } from '../find-executable.js';
import type { PlanInput, TerminalBackend, TerminalConfig } from './backend-types.js';

/** `docker exec [-i] [-u user] [-w workdir] <container> bash -lc <command>`. */
export function dockerArgs(input: Pick<PlanInput, 'command' | 'workdir' | 'input' | 'terminal'>): string[] {
  const docker = input.terminal.docker;
  const args = ['exec'];
  if (input.input !== undefined) args.push('-i');
  if (docker.user !== undefined) args.push('-u', docker.user);
  if (input.workdir !== undefined) args.push('-w', input.workdir);
  args.push(docker.container ?? '', 'bash', '-lc', input.command);
  return args;
}

/** Runs commands inside an already running container through the docker CLI. */
export const dockerBackend: TerminalBackend = {
  name: 'docker',
  check(terminal: TerminalConfig, env) {
    const docker = terminal.docker;
    if (docker.container === undefined) {
      return { ok: false, reason: 'docker backend: no container configured (set terminal.docker.container)' };
    }
    if (findExecutable(docker.binary, env['PATH']) === undefined) {
      return {
        ok: false,
        reason: `docker backend: '${docker.binary}' not found on PATH (terminal.docker.binary)`,
      };
    }
    return { ok: true };
  },
  resolveWorkdir(workdir, _ctxCwd, terminal) {
    const base = terminal.docker.workdir;
    if (workdir === undefined) return base;
    if (posix.isAbsolute(workdir)) return posix.normalize(workdir);
    if (base === undefined) {
      throw new HermesError(
        'exec_failed',
        `workdir '${workdir}' must be an absolute path inside the container (no terminal.docker.workdir to resolve it against)`,
      );
    }
    return posix.resolve(base, workdir);
  },
  plan(input) {
    const binary =
      findExecutable(input.terminal.docker.binary, input.env['PATH']) ?? input.terminal.docker.binary;
    return {
      file: binary,
      args: dockerArgs(input),
      env: input.env,
      ...(input.input !== undefined ? { input: input.input } : {}),
    };
  },
};
