/**
 * Programs that run another program given as their remaining arguments (`sudo`, `env`, `nice`,
 * `strace`, `unshare`…), with the options each one reads, so the detector can peel them the way
 * the program itself would and judge the command underneath.
 */

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
  [
    'strace',
    {
      valueShort: 'abeEIoOpPsSuUX',
      longs: {
        ...INFO,
        output: 1,
        attach: 1,
        env: 1,
        user: 1,
        trace: 1,
        signal: 1,
        status: 1,
        'string-limit': 1,
        columns: 1,
        'trace-path': 1,
        'summary-sort-by': 1,
        'const-print-style': 1,
        inject: 1,
        fault: 1,
        'absolute-timestamps': 'optional',
        'relative-timestamps': 'optional',
        'syscall-times': 'optional',
        'decode-fds': 'optional',
        'decode-pids': 'optional',
        daemonize: 'optional',
        quiet: 'optional',
        silence: 'optional',
        'output-separately': 0,
        'follow-forks': 0,
        'summary-only': 0,
        summary: 0,
        'summary-wall-clock': 0,
        'seccomp-bpf': 0,
        'no-abbrev': 0,
        verbose: 0,
        'kill-on-exit': 0,
        'instruction-pointer': 0,
        'stack-traces': 0,
        'successful-only': 0,
        'failed-only': 0,
      },
      abbrev: true,
    },
  ],
  [
    'ltrace',
    {
      valueShort: 'aeoplsunxLFwA',
      longs: { ...INFO, output: 1, library: 1, indent: 1, align: 1, demangle: 0, config: 1 },
      abbrev: true,
    },
  ],
  [
    'unshare',
    {
      valueShort: 'SGRw',
      longs: {
        ...INFO,
        'map-user': 1,
        'map-group': 1,
        'map-users': 1,
        'map-groups': 1,
        setuid: 1,
        setgid: 1,
        root: 1,
        wd: 1,
        propagation: 1,
        setgroups: 1,
        'load-interp': 1,
        monotonic: 1,
        boottime: 1,
        mount: 'optional',
        uts: 'optional',
        ipc: 'optional',
        net: 'optional',
        pid: 'optional',
        user: 'optional',
        cgroup: 'optional',
        time: 'optional',
        'mount-proc': 'optional',
        'mount-binfmt': 'optional',
        'kill-child': 'optional',
        fork: 0,
        'map-root-user': 0,
        'map-current-user': 0,
        'map-auto': 0,
        'keep-caps': 0,
      },
      abbrev: true,
    },
  ],
  [
    'fakeroot',
    { valueShort: 'lsib', longs: { ...INFO, lib: 1, faked: 1, 'unknown-is-real': 0 }, abbrev: true },
  ],
  [
    'nsenter',
    {
      valueShort: 'tSG',
      longs: {
        ...INFO,
        target: 1,
        setuid: 1,
        setgid: 1,
        mount: 'optional',
        uts: 'optional',
        ipc: 'optional',
        net: 'optional',
        pid: 'optional',
        cgroup: 'optional',
        user: 'optional',
        time: 'optional',
        root: 'optional',
        wd: 'optional',
        'preserve-credentials': 0,
        'no-fork': 0,
        'follow-context': 0,
        all: 0,
      },
      abbrev: true,
    },
  ],
  [
    'systemd-run',
    {
      valueShort: 'upEHM',
      stopShort: 'S',
      longs: {
        ...INFO,
        unit: 1,
        property: 1,
        description: 1,
        slice: 1,
        'slice-inherit': 0,
        setenv: 1,
        uid: 1,
        gid: 1,
        nice: 1,
        'working-directory': 1,
        host: 1,
        machine: 1,
        'on-active': 1,
        'on-boot': 1,
        'on-startup': 1,
        'on-unit-active': 1,
        'on-unit-inactive': 1,
        'on-calendar': 1,
        'on-clock-change': 0,
        'on-timezone-change': 0,
        'timer-property': 1,
        'path-property': 1,
        'socket-property': 1,
        'service-type': 1,
        'expand-environment': 1,
        'job-mode': 1,
        json: 1,
        user: 0,
        system: 0,
        scope: 0,
        'remain-after-exit': 0,
        'send-sighup': 0,
        pty: 0,
        pipe: 0,
        collect: 0,
        quiet: 0,
        wait: 0,
        'no-block': 0,
        'no-ask-password': 0,
        'same-dir': 0,
        shell: 'stop',
      },
      abbrev: true,
    },
  ],
  [
    'setpriv',
    {
      longs: {
        ...INFO,
        reuid: 1,
        regid: 1,
        ruid: 1,
        euid: 1,
        rgid: 1,
        egid: 1,
        groups: 1,
        'inh-caps': 1,
        'ambient-caps': 1,
        'bounding-set': 1,
        securebits: 1,
        'selinux-label': 1,
        'apparmor-profile': 1,
        'landlock-access': 1,
        'landlock-rule': 1,
        pdeathsig: 1,
        'clear-groups': 0,
        'keep-groups': 0,
        'init-groups': 0,
        nnp: 0,
        'no-new-privs': 0,
        'reset-env': 0,
        dump: 0,
      },
      abbrev: true,
    },
  ],
  [
    'xvfb-run',
    {
      valueShort: 'efnpsw',
      longs: {
        help: 'stop',
        'error-file': 1,
        'auth-file': 1,
        'server-num': 1,
        'xauth-protocol': 1,
        'server-args': 1,
        wait: 1,
        'auto-servernum': 0,
        'auto-display': 0,
        'listen-tcp': 0,
      },
      abbrev: true,
    },
  ],
  ['dbus-run-session', { longs: { ...INFO, 'config-file': 1, 'dbus-daemon': 1 } }],
  [
    'torsocks',
    {
      valueShort: 'uapP',
      longs: {
        ...INFO,
        user: 1,
        pass: 1,
        address: 1,
        port: 1,
        isolate: 0,
        debug: 0,
        quiet: 0,
        shell: 'stop',
      },
      abbrev: true,
    },
  ],
  ['proxychains', { valueShort: 'f' }],
  ['proxychains4', { valueShort: 'f' }],
  ['eatmydata', {}],
  ['catchsegv', {}],
  ['faketime', { positional: 1, longs: { ...INFO, 'exclude-monotonic': 0, 'date-prog': 1 } }],
  ['gosu', { positional: 1 }],
  ['su-exec', { positional: 1 }],
  ['setuidgid', { positional: 1 }],
  ['valgrind', {}],
  ['cgexec', { valueShort: 'g', longs: { sticky: 0 } }],
  ['firejail', {}],
  [
    'numactl',
    {
      valueShort: 'ipmCN',
      stopShort: 'sH',
      longs: {
        ...INFO,
        interleave: 1,
        preferred: 1,
        membind: 1,
        physcpubind: 1,
        cpunodebind: 1,
        localalloc: 0,
        show: 'stop',
        hardware: 'stop',
      },
      abbrev: true,
    },
  ],
  [
    'bwrap',
    {
      longs: {
        ...INFO,
        bind: 2,
        'ro-bind': 2,
        'dev-bind': 2,
        'bind-try': 2,
        'ro-bind-try': 2,
        'dev-bind-try': 2,
        symlink: 2,
        setenv: 2,
        chmod: 2,
        file: 2,
        'bind-data': 2,
        'ro-bind-data': 2,
        unsetenv: 1,
        chdir: 1,
        tmpfs: 1,
        proc: 1,
        dev: 1,
        dir: 1,
        'remount-ro': 1,
        mqueue: 1,
        uid: 1,
        gid: 1,
        hostname: 1,
        'lock-file': 1,
        'sync-fd': 1,
        'info-fd': 1,
        'json-status-fd': 1,
        'block-fd': 1,
        'userns-block-fd': 1,
        seccomp: 1,
        'add-seccomp-fd': 1,
        'exec-label': 1,
        'file-label': 1,
        'cap-add': 1,
        'cap-drop': 1,
        perms: 1,
        size: 1,
        args: 1,
        argv0: 1,
        userns: 1,
        userns2: 1,
        pidns: 1,
        'unshare-all': 0,
        'unshare-user': 0,
        'unshare-user-try': 0,
        'unshare-ipc': 0,
        'unshare-pid': 0,
        'unshare-net': 0,
        'unshare-uts': 0,
        'unshare-cgroup': 0,
        'unshare-cgroup-try': 0,
        'share-net': 0,
        'die-with-parent': 0,
        'as-pid-1': 0,
        'new-session': 0,
        clearenv: 0,
        'disable-userns': 0,
        'assert-userns-disabled': 0,
        'level-prefix': 0,
      },
    },
  ],
  ['ssh-agent', { valueShort: 'aEPt', stopShort: 'kD' }],
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
