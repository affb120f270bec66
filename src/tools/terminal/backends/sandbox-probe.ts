import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { findExecutable } from '../find-executable.js';
import type { TerminalConfig } from './backend-types.js';
import { localShell } from './local.js';
import { bwrapArgs, limitArgs, NAMESPACE_FLAGS, systemLayer, ulimitPrelude } from './sandbox-args.js';
import { configuredRoots, type SandboxPlaces } from './sandbox-layout.js';

export interface SandboxTools {
  readonly bwrap: string;
  /** `systemLayer` of the probed layout, reused by every command until the next probe. */
  readonly system: readonly string[];
  /** The strongest of NAMESPACE_FLAGS that works here. */
  readonly namespaces: readonly string[];
  /** The `prlimit` wrapper for a shell other than bash; empty when none is needed. */
  readonly limits: readonly string[];
  /** For bash: the `ulimit` line put before the command; '' when no limit is configured. */
  readonly prelude: string;
  readonly shell: string;
}

export type SandboxCheck =
  | { readonly ok: true; readonly tools: SandboxTools }
  | { readonly ok: false; readonly reason: string };

/** Milliseconds a probe result is reused: a working bwrap keeps working, a broken one is retried soon. */
const OK_TTL_MS = 10 * 60_000;
const FAIL_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 15_000;

/** The shell run inside: bash when the system shows it, else /bin/sh. */
function innerShell(env: Readonly<Record<string, string>>): string {
  const shell = localShell(env);
  return shell !== undefined && /^\/(?:usr\/)?s?bin\//.test(shell) ? shell : '/bin/sh';
}

/** Finds bwrap (and prlimit for a shell other than bash) and runs `exit 0` in a sandbox laid out as for a command. */
function probe(
  terminal: TerminalConfig,
  env: Readonly<Record<string, string>>,
  places: SandboxPlaces,
): SandboxCheck {
  const sandbox = terminal.sandbox;
  const bwrap = findExecutable(sandbox.binary, env['PATH']);
  if (bwrap === undefined) {
    return {
      ok: false,
      reason: `sandbox backend: '${sandbox.binary}' not found on PATH (install bubblewrap: apt-get install bubblewrap; or set terminal.sandbox.binary)`,
    };
  }
  const shell = innerShell(env);
  const prelude = basename(shell) === 'bash' ? ulimitPrelude(sandbox) : '';
  let limits: string[] = [];
  if (basename(shell) !== 'bash' && limitArgs(sandbox, 'prlimit').length > 0) {
    const prlimit = findExecutable('prlimit', env['PATH']);
    if (prlimit === undefined) {
      return {
        ok: false,
        reason:
          'sandbox backend: prlimit (util-linux) not found on PATH; it applies terminal.sandbox limits (set them to 0 to run without)',
      };
    }
    limits = limitArgs(sandbox, prlimit);
  }
  let roots: ReturnType<typeof configuredRoots>;
  try {
    roots = configuredRoots(terminal, places);
  } catch (error) {
    return { ok: false, reason: `sandbox backend: ${(error as Error).message}` };
  }
  const system = systemLayer(places);
  let failure = '';
  for (const namespaces of NAMESPACE_FLAGS) {
    const result = spawnSync(
      bwrap,
      bwrapArgs({
        places,
        namespaces,
        system,
        roots: { writable: [], readable: roots.readable },
        network: sandbox.network,
        chdir: '/',
        command: [...limits, shell, '-c', `${prelude}exit 0`],
      }),
      {
        env: { PATH: env['PATH'] ?? '/usr/bin:/bin' },
        encoding: 'utf8',
        timeout: PROBE_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    if (result.error === undefined && result.status === 0) {
      return { ok: true, tools: { bwrap, system, namespaces, limits, prelude, shell } };
    }
    // The first failure is the telling one: the weaker flags are only a fallback.
    failure ||=
      (result.stderr ?? '').trim().split('\n')[0] ||
      result.error?.message ||
      `exit status ${String(result.status)}`;
  }
  return { ok: false, reason: `sandbox backend: bubblewrap cannot run here: ${failure}` };
}

/**
 * Remembers whether bubblewrap works with a given layout, so the check costs one sandbox start per
 * few minutes, not one per command. One per owner (the tool services); see `sandboxProbeFor`.
 */
export class SandboxProbe {
  readonly #results = new Map<string, { readonly check: SandboxCheck; readonly at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  check(
    terminal: TerminalConfig,
    env: Readonly<Record<string, string>>,
    places: SandboxPlaces,
  ): SandboxCheck {
    const key = JSON.stringify([terminal.sandbox, env['PATH'], places]);
    const now = this.#now();
    const known = this.#results.get(key);
    if (known !== undefined && now - known.at < (known.check.ok ? OK_TTL_MS : FAIL_TTL_MS))
      return known.check;
    const check = probe(terminal, env, places);
    this.#results.set(key, { check, at: now });
    return check;
  }
}

const probes = new WeakMap<object, SandboxProbe>();

/** The probe cache of an owner (the terminal's ToolServices): created on first use. */
export function sandboxProbeFor(owner: object): SandboxProbe {
  let found = probes.get(owner);
  if (found === undefined) {
    found = new SandboxProbe();
    probes.set(owner, found);
  }
  return found;
}
