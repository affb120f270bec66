import { findExecutable } from '../find-executable.js';
import type { PlanInput, TerminalBackend, TerminalConfig } from './backend-types.js';
import { shellQuote } from './shell-quote.js';

/** The command line the remote shell receives: change directory first when one is given. */
export function remoteCommand(command: string, workdir: string | undefined): string {
  if (workdir === undefined) return command;
  const target =
    workdir === '~'
      ? '~'
      : workdir.startsWith('~/')
        ? `~/${shellQuote(workdir.slice(2))}`
        : shellQuote(workdir);
  return `cd ${target} || exit 1\n${command}`;
}

/**
 * `ssh -o BatchMode=yes [-o SendEnv=NAME…] [-p port] [-i identity] -- [user@]host <remote command>`.
 * Variables `terminal.env_passthrough` let through are offered with SendEnv (the server must
 * accept them with AcceptEnv); their values never appear on a command line.
 */
export function sshArgs(
  input: Pick<PlanInput, 'command' | 'workdir' | 'terminal' | 'passedThrough'>,
): string[] {
  const ssh = input.terminal.ssh;
  const args = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=15', '-T', '-p', String(ssh.port)];
  for (const name of input.passedThrough ?? []) args.push('-o', `SendEnv=${name}`);
  if (ssh.identity_file !== undefined) args.push('-i', ssh.identity_file);
  const destination = ssh.user !== undefined ? `${ssh.user}@${ssh.host ?? ''}` : (ssh.host ?? '');
  args.push('--', destination, remoteCommand(input.command, input.workdir));
  return args;
}

/** Runs commands on another machine through the system ssh client (keys only, never a prompt). */
export const sshBackend: TerminalBackend = {
  name: 'ssh',
  clientEnvNames: ['SSH_AUTH_SOCK'],
  check(terminal: TerminalConfig, env) {
    const ssh = terminal.ssh;
    if (ssh.host === undefined)
      return { ok: false, reason: 'ssh backend: no host configured (set terminal.ssh.host)' };
    if (ssh.host.startsWith('-') || (ssh.user ?? '').startsWith('-')) {
      return {
        ok: false,
        reason: 'ssh backend: terminal.ssh.host and terminal.ssh.user must not start with "-"',
      };
    }
    if (findExecutable(ssh.binary, env['PATH']) === undefined) {
      return { ok: false, reason: `ssh backend: '${ssh.binary}' not found on PATH (terminal.ssh.binary)` };
    }
    return { ok: true };
  },
  resolveWorkdir(workdir) {
    return workdir;
  },
  plan(input) {
    const binary = findExecutable(input.terminal.ssh.binary, input.env['PATH']) ?? input.terminal.ssh.binary;
    return {
      file: binary,
      args: sshArgs(input),
      env: input.env,
      ...(input.input !== undefined ? { input: input.input } : {}),
    };
  },
};
