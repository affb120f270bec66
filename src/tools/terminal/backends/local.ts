import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import { findExecutable } from '../find-executable.js';
import type { TerminalBackend } from './backend-types.js';

/** bash from PATH, else /bin/sh; undefined when neither exists. */
export function localShell(env: Readonly<Record<string, string>>): string | undefined {
  return findExecutable('bash', env['PATH']) ?? findExecutable('/bin/sh', undefined);
}

/** Runs `bash --norc --noprofile -c <command>` (or `/bin/sh -c`) on this machine. */
export const localBackend: TerminalBackend = {
  name: 'local',
  check(_terminal, env) {
    return localShell(env) === undefined
      ? { ok: false, reason: 'local backend: neither bash on PATH nor /bin/sh found' }
      : { ok: true };
  },
  resolveWorkdir(workdir, ctxCwd) {
    if (workdir === undefined) return resolve(ctxCwd);
    if (workdir === '~') return homedir();
    if (workdir.startsWith('~/')) return resolve(homedir(), workdir.slice(2));
    return resolve(ctxCwd, workdir);
  },
  plan({ command, workdir, env, input }) {
    const shell = localShell(env) ?? '/bin/sh';
    // --norc: bash would read ~/.bashrc when stdin is a socket (Node's stdin pipe), as under sshd.
    const flags = basename(shell) === 'bash' ? ['--norc', '--noprofile'] : [];
    return {
      file: shell,
      args: [...flags, '-c', command],
      ...(workdir !== undefined ? { cwd: workdir } : {}),
      env,
      ...(input !== undefined ? { input } : {}),
    };
  },
};
