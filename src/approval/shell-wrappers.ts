/**
 * Programs that run another program given as their remaining arguments (`sudo`, `env`, `nice`,
 * `strace`, `unshare`…), with the options each one reads, so the detector can peel them the way
 * the program itself would and judge the command underneath.
 */

import { TOOL_WRAPPERS } from './shell-wrappers-tools.js';

/**
 * How a long option of a wrapper is read: how many words of value it takes (`1`: `--user root`
 * or `--user=root`), `'optional'` (a value only with `=`), or `'stop'` (the wrapper runs no
 * command, or its own rule reads what it runs: `sudo --list`, `env --split-string`).
 */
export type LongKind = 0 | 1 | 2 | 3 | 'optional' | 'stop';

export interface WrapperSpec {
  /** Short options that take a value (`-u root` or `-uroot`). */
  readonly valueShort?: string;
  /** Short options that mean the wrapper runs no command, or its rule reads it (`command -v`). */
  readonly stopShort?: string;
  /**
   * Every long option, without the dashes. When given, an option not in it (or an ambiguous
   * prefix) makes the peel uncertain: its next word may be a value rather than the command.
   */
  readonly longs?: Readonly<Record<string, LongKind>>;
  /** GNU getopt_long: an unambiguous prefix names the option (`sudo --us root` is `--user`). */
  readonly abbrev?: boolean;
  /** Positional arguments before the command (`timeout 5`, `chroot DIR`, `taskset MASK`). */
  readonly positional?: number;
  /** Accepts `NAME=value` words before the command (`env`, `sudo`). */
  readonly assignments?: boolean;
}

const INFO: Readonly<Record<string, LongKind>> = { help: 'stop', version: 'stop' };

export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    'sudo',
    {
      // `-l`, `-e`, `-v` run nothing, but peeling on keeps `sudo -Sl` visible to the sudo rules.
      valueShort: 'CDghprRtTUu',
      longs: {
        ...INFO,
        askpass: 0,
        background: 0,
        bell: 0,
        'close-from': 1,
        chdir: 1,
        chroot: 1,
        'command-timeout': 1,
        'preserve-env': 'optional',
        edit: 0,
        group: 1,
        'set-home': 0,
        host: 1,
        login: 0,
        'remove-timestamp': 0,
        'reset-timestamp': 0,
        list: 0,
        'non-interactive': 0,
        'preserve-groups': 0,
        prompt: 1,
        role: 1,
        stdin: 0,
        shell: 0,
        type: 1,
        'other-user': 1,
        user: 1,
        validate: 0,
      },
      abbrev: true,
      assignments: true,
    },
  ],
  ['doas', { valueShort: 'u', stopShort: 'CL' }],
  ['pkexec', { longs: { ...INFO, user: 1, 'disable-internal-agent': 0, 'keep-cwd': 0 } }],
  [
    'env',
    {
      valueShort: 'uCPa',
      stopShort: 'S',
      longs: {
        ...INFO,
        'ignore-environment': 0,
        null: 0,
        unset: 1,
        chdir: 1,
        argv0: 1,
        'split-string': 'stop',
        'block-signal': 'optional',
        'default-signal': 'optional',
        'ignore-signal': 'optional',
        'list-signal-handling': 0,
        debug: 0,
      },
      abbrev: true,
      assignments: true,
    },
  ],
  ['exec', { valueShort: 'a' }],
  ['nohup', { longs: INFO, abbrev: true }],
  ['setsid', { longs: { ...INFO, ctty: 0, fork: 0, wait: 0 }, abbrev: true }],
  [
    'time',
    {
      valueShort: 'fo',
      longs: { ...INFO, format: 1, output: 1, append: 0, portability: 0, verbose: 0, quiet: 0 },
      abbrev: true,
    },
  ],
  ['nice', { valueShort: 'n', longs: { ...INFO, adjustment: 1 }, abbrev: true }],
  [
    'ionice',
    {
      valueShort: 'cn',
      stopShort: 'pPu',
      longs: { ...INFO, class: 1, classdata: 1, pid: 'stop', pgid: 'stop', uid: 'stop', ignore: 0 },
      abbrev: true,
    },
  ],
  [
    'chrt',
    {
      valueShort: 'TPD',
      stopShort: 'pm',
      positional: 1,
      longs: {
        ...INFO,
        pid: 'stop',
        max: 'stop',
        'sched-runtime': 1,
        'sched-period': 1,
        'sched-deadline': 1,
        'all-tasks': 0,
        batch: 0,
        deadline: 0,
        fifo: 0,
        idle: 0,
        other: 0,
        rr: 0,
        ext: 0,
        'reset-on-fork': 0,
        verbose: 0,
      },
      abbrev: true,
    },
  ],
  [
    'taskset',
    {
      stopShort: 'p',
      positional: 1,
      longs: { ...INFO, pid: 'stop', 'cpu-list': 0, 'all-tasks': 0 },
      abbrev: true,
    },
  ],
  ['stdbuf', { valueShort: 'ioe', longs: { ...INFO, input: 1, output: 1, error: 1 }, abbrev: true }],
  ['command', { stopShort: 'vV' }],
  ['builtin', {}],
  ['busybox', {}],
  ['toybox', {}],
  [
    'timeout',
    {
      valueShort: 'sk',
      positional: 1,
      longs: { ...INFO, signal: 1, 'kill-after': 1, 'preserve-status': 0, foreground: 0, verbose: 0 },
      abbrev: true,
    },
  ],
  ['unbuffer', {}],
  ['caffeinate', { valueShort: 'tw' }],
  [
    'flock',
    {
      valueShort: 'wE',
      stopShort: 'c',
      positional: 1,
      longs: {
        ...INFO,
        command: 'stop',
        timeout: 1,
        wait: 1,
        'conflict-exit-code': 1,
        shared: 0,
        exclusive: 0,
        unlock: 0,
        nonblock: 0,
        nb: 0,
        'no-fork': 0,
        close: 0,
        verbose: 0,
      },
      abbrev: true,
    },
  ],
  ['chroot', { positional: 1, longs: { ...INFO, userspec: 1, groups: 1, 'skip-chdir': 0 }, abbrev: true }],
  ['sshpass', { valueShort: 'pfdP' }],
  [
    'npx',
    {
      valueShort: 'pw',
      stopShort: 'c',
      longs: {
        ...INFO,
        package: 1,
        call: 'stop',
        yes: 0,
        no: 0,
        workspace: 1,
        workspaces: 0,
        'include-workspace-root': 0,
        quiet: 0,
        'ignore-existing': 0,
        registry: 1,
        cache: 1,
        loglevel: 1,
        userconfig: 1,
        prefix: 1,
      },
      abbrev: true,
    },
  ],
  [
    'bunx',
    { valueShort: 'p', longs: { ...INFO, package: 1, bun: 0, 'no-install': 0, silent: 0, verbose: 0 } },
  ],
  [
    'pnpx',
    { valueShort: 'p', stopShort: 'c', longs: { ...INFO, package: 1, 'shell-mode': 'stop', silent: 0 } },
  ],
  ...TOOL_WRAPPERS,
]);

/** Resolves a long option name (without dashes) the way the wrapper itself would. */
export function longKind(spec: WrapperSpec, name: string): LongKind | undefined {
  const longs = spec.longs;
  if (longs === undefined) return 0;
  const exact = longs[name];
  if (exact !== undefined) return exact;
  if (spec.abbrev !== true || name === '') return undefined;
  let found: LongKind | undefined;
  let matches = 0;
  for (const key in longs) {
    if (key.startsWith(name)) {
      matches += 1;
      found = longs[key];
    }
  }
  return matches === 1 ? found : undefined;
}

/**
 * The long option `text` (`--us`, `--user=root`) resolved against `options` the way GNU
 * getopt_long does (exact name, else an unambiguous prefix); undefined when unknown or ambiguous.
 */
export function resolveLongOption(text: string, options: readonly string[]): string | undefined {
  const eq = text.indexOf('=');
  const name = (eq < 0 ? text : text.slice(0, eq)).toLowerCase();
  if (!name.startsWith('--') || name.length < 3) return undefined;
  if (options.includes(name)) return name;
  let found: string | undefined;
  for (const option of options) {
    if (!option.startsWith(name)) continue;
    if (found !== undefined) return undefined;
    found = option;
  }
  return found;
}
