import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { HermesError } from '../../../errors/hermes-error.js';
import type { InnerProcesses } from '../spawn-group.js';
import type { BackendHost, TerminalBackend } from './backend-types.js';
import { localBackend } from './local.js';
import { bwrapArgs } from './sandbox-args.js';
import { commandRoots, homesToHide, type SandboxPlaces } from './sandbox-layout.js';
import { sandboxProbeFor } from './sandbox-probe.js';

function placesFor(host: BackendHost, env: Readonly<Record<string, string>>): SandboxPlaces {
  return { hermesHome: resolve(host.hermesHome), homes: homesToHide(env['HOME']) };
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The sandbox's processes as seen from here: bwrap's only child is the init of the sandbox's PID
 * namespace; once set up, it leads a new session whose process group the command belongs to.
 * While it is still being set up, it is in bwrap's own group and there is no command yet.
 */
export function sandboxInner(leaderPid: number): InnerProcesses | undefined {
  const children = readProc(`/proc/${leaderPid}/task/${leaderPid}/children`)?.trim().split(/\s+/);
  const init = Number(children?.[0]);
  if (!Number.isInteger(init) || init <= 1) return undefined;
  const stat = readProc(`/proc/${init}/stat`);
  const pgid = stat === undefined ? Number.NaN : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  return { init, commandGroup: pgid === init ? init : undefined };
}

/**
 * Runs each command under bubblewrap (see `bwrapArgs`): the system read-only, home directories
 * and HERMES_HOME hidden, the session working directory and `terminal.sandbox.writable`
 * writable, its own PID namespace, resource limits by bash's `ulimit` (or prlimit for another shell). Paths mean what they mean on this
 * machine, as with `local`.
 */
export const sandboxBackend: TerminalBackend = {
  name: 'sandbox',
  check(terminal, env, host) {
    if (host === undefined) return { ok: false, reason: 'sandbox backend: HERMES_HOME unknown' };
    const probe = sandboxProbeFor(host.owner).check(terminal, env, placesFor(host, env));
    return probe.ok ? { ok: true } : { ok: false, reason: probe.reason };
  },
  resolveWorkdir: (workdir, ctxCwd, terminal) => localBackend.resolveWorkdir(workdir, ctxCwd, terminal),
  plan(input) {
    const { host, terminal } = input;
    if (host === undefined) throw new HermesError('exec_failed', 'sandbox backend: HERMES_HOME unknown');
    const places = placesFor(host, input.env);
    const probe = sandboxProbeFor(host.owner).check(terminal, input.env, places);
    if (!probe.ok) throw new HermesError('exec_failed', `terminal unavailable: ${probe.reason}`);
    const sessionCwd = resolve(input.sessionCwd ?? input.workdir ?? '/');
    const roots = commandRoots(terminal, places, sessionCwd);
    const { bwrap, system, namespaces, limits, prelude, shell } = probe.tools;
    const flags = basename(shell) === 'bash' ? ['--norc', '--noprofile'] : [];
    return {
      file: bwrap,
      args: bwrapArgs({
        places,
        namespaces,
        system,
        roots,
        network: terminal.sandbox.network,
        chdir: input.workdir ?? sessionCwd,
        command: [...limits, shell, ...flags, '-c', `${prelude}${input.command}`],
      }),
      cwd: '/',
      // The private /tmp is the only temporary directory inside.
      env: { ...input.env, TMPDIR: '/tmp' },
      ...(input.input !== undefined ? { input: input.input } : {}),
      inner: sandboxInner,
    };
  },
};
