import { posix } from 'node:path';
import { HermesError } from '../../../errors/hermes-error.js';
import { findExecutable } from '../find-executable.js';
import type { PlanInput, TerminalBackend, TerminalConfig } from './backend-types.js';

/**
 * `docker exec [-i] [-e NAME…] [-u user] [-w workdir] <container> bash -lc <command>`. `-e NAME`
 * (no value: docker reads it from its own environment, so it is never on a command line) forwards
 * each variable `terminal.env_passthrough` let through; nothing else reaches the container.
 */
export function dockerArgs(
  input: Pick<PlanInput, 'command' | 'workdir' | 'input' | 'terminal' | 'passedThrough'>,
): string[] {
  const docker = input.terminal.docker;
  const args = ['exec'];
  if (input.input !== undefined) args.push('-i');
  for (const name of input.passedThrough ?? []) args.push('-e', name);
  if (docker.user !== undefined) args.push('-u', docker.user);
  if (input.workdir !== undefined) args.push('-w', input.workdir);
  args.push(docker.container ?? '', 'bash', '-lc', input.command);
  return args;
}

/** Runs commands inside an already running container through the docker CLI. */
export const dockerBackend: TerminalBackend = {
  name: 'docker',
  clientEnvNames: ['DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'],
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
