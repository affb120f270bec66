/**
 * Project and environment runners that run a command given in their arguments (`poetry run
 * pytest`, `npm exec -- tsc`, `nix-shell --run 'make'`, `aws-vault exec prod -- terraform
 * apply`): where the command starts, so the detector can judge it like any other.
 */

export interface RunnerSpec {
  /** Subcommand words before the runner's own options (`['run']`, `['exec']`); `[]` for none. */
  readonly path: readonly string[];
  /** Global options before the path that take a value (`poetry -C dir run`). */
  readonly globalValued?: readonly string[];
  /** Options after the path that take a value. */
  readonly valued?: readonly string[];
  /** Long options known to take none: another unknown long option makes the reading uncertain. */
  readonly flags?: readonly string[];
  /** Options whose value is shell text the runner executes (`--run`, `-c`, `--command`). */
  readonly payload?: readonly string[];
  /** With a payload option the rest is not a command (`npx -c 'cmd'`). */
  readonly payloadOnly?: boolean;
  /** Options after which the rest is the command (`nix develop -c cmd …`). */
  readonly commandAfter?: readonly string[];
  /** Options after which the runner runs nothing (`--list`). */
  readonly stop?: readonly string[];
  /** Operands before the command (`rustup run TOOLCHAIN cmd`, `aws-vault exec PROFILE -- cmd`). */
  readonly positional?: number;
  /** The command comes only after `--`. */
  readonly dashes?: boolean;
  /** The rest is shell text (joined), not an argument vector (`pixi run`, `bun exec`). */
  readonly shell?: boolean;
  /** Only the first operand is shell text (`sops exec-env FILE 'cmd'`). */
  readonly shellFirstOnly?: boolean;
}

const NPM_EXEC: RunnerSpec = {
  path: ['exec'],
  valued: ['--package', '-p', '--workspace', '-w'],
  payload: ['-c', '--call'],
  payloadOnly: true,
};

export const RUNNERS: ReadonlyMap<string, readonly RunnerSpec[]> = new Map<string, readonly RunnerSpec[]>([
  ['poetry', [{ path: ['run'], globalValued: ['-C', '--directory', '-P', '--project'] }]],
  ['pipenv', [{ path: ['run'] }]],
  ['pdm', [{ path: ['run'], valued: ['-p', '--project'], stop: ['-l', '--list'] }]],
  ['rye', [{ path: ['run'], valued: ['--pyproject'], stop: ['-l', '--list'] }]],
  ['hatch', [{ path: ['run'], globalValued: ['-e', '--env', '-p', '--project'] }]],
  [
    'uv',
    [
      {
        path: ['run'],
        globalValued: ['--directory', '--project', '--cache-dir', '--config-file', '--color'],
        valued: [
          '--with',
          '--with-editable',
          '--with-requirements',
          '--python',
          '-p',
          '--directory',
          '--project',
          '--package',
          '--env-file',
          '--extra',
          '--group',
          '--only-group',
          '--no-group',
          '--index',
          '--index-url',
          '--extra-index-url',
          '--find-links',
          '-f',
          '--cache-dir',
          '--config-file',
          '--python-platform',
          '--exclude-newer',
        ],
      },
      { path: ['tool', 'run'], valued: ['--with', '--from', '--python', '-p'] },
    ],
  ],
  ['uvx', [{ path: [], valued: ['--with', '--from', '--python', '-p'] }]],
  ['conda', [{ path: ['run'], valued: ['-n', '--name', '-p', '--prefix', '--cwd'] }]],
  ['mamba', [{ path: ['run'], valued: ['-n', '--name', '-p', '--prefix', '--cwd'] }]],
  ['micromamba', [{ path: ['run'], valued: ['-n', '--name', '-p', '--prefix', '--cwd'] }]],
  ['pixi', [{ path: ['run'], valued: ['-e', '--environment', '--manifest-path'], shell: true }]],
  ['bundle', [{ path: ['exec'] }]],
  ['rbenv', [{ path: ['exec'] }]],
  ['pyenv', [{ path: ['exec'] }]],
  ['asdf', [{ path: ['exec'] }]],
  ['devbox', [{ path: ['run'], valued: ['-c', '--config', '-e', '--env', '--env-file'] }]],
  ['volta', [{ path: ['run'], valued: ['--node', '--npm', '--pnpm', '--yarn', '--env'] }]],
  [
    'mise',
    [
      { path: ['exec'], dashes: true },
      { path: ['x'], dashes: true },
    ],
  ],
  ['rustup', [{ path: ['run'], positional: 1 }]],
  ['fnm', [{ path: ['exec'], valued: ['--using'] }]],
  ['direnv', [{ path: ['exec'], positional: 1 }]],
  ['dotenv', [{ path: [], valued: ['-e', '-c', '-v'], stop: ['-p'] }]],
  ['op', [{ path: ['run'], valued: ['--env-file'], dashes: true }]],
  [
    'aws-vault',
    [{ path: ['exec'], positional: 1, valued: ['--region', '--duration', '-d', '--mfa-token', '-t'] }],
  ],
  [
    'doppler',
    [
      {
        path: ['run'],
        valued: ['-p', '--project', '-c', '--config', '--token', '--fallback', '--mount', '--mount-format'],
        payload: ['--command'],
        payloadOnly: true,
      },
    ],
  ],
  [
    'infisical',
    [
      {
        path: ['run'],
        valued: ['--env', '--path', '--projectId', '--token', '--domain'],
        payload: ['--command'],
        payloadOnly: true,
      },
    ],
  ],
  [
    'sops',
    [
      { path: ['exec-env'], positional: 1, shell: true, shellFirstOnly: true },
      { path: ['exec-file'], positional: 1, shell: true, shellFirstOnly: true },
    ],
  ],
  ['npm', [NPM_EXEC, { ...NPM_EXEC, path: ['x'] }]],
  // Reached only with `-c` (otherwise npx is peeled like sudo and its command judged).
  [
    'npx',
    [
      {
        path: [],
        valued: ['-p', '--package', '-w', '--workspace'],
        payload: ['-c', '--call'],
        payloadOnly: true,
      },
    ],
  ],
  ['pnpx', [{ path: [], valued: ['-p', '--package'], payload: ['-c', '--shell-mode'], payloadOnly: true }]],
  [
    'pnpm',
    [
      { path: ['exec'] },
      { path: ['dlx'], valued: ['--package'], payload: ['-c', '--shell-mode'], payloadOnly: true },
    ],
  ],
  ['yarn', [{ path: ['exec'] }, { path: ['dlx'], valued: ['-p', '--package'] }]],
  ['bun', [{ path: ['x'] }, { path: ['exec'], shell: true }]],
  [
    'nix-shell',
    [
      {
        path: [],
        payload: ['--run', '--command'],
        payloadOnly: true,
        valued: ['-p', '-I', '-A', '--arg', '--argstr', '--attr'],
        dashes: true,
      },
    ],
  ],
  [
    'nix',
    [
      { path: ['develop'], commandAfter: ['-c', '--command'], dashes: true },
      { path: ['shell'], commandAfter: ['-c', '--command'], dashes: true },
    ],
  ],
  ['entr', [{ path: [], payload: ['-s'], payloadOnly: true }]],
  [
    'watchexec',
    [
      {
        path: [],
        valued: [
          '-w',
          '--watch',
          '-e',
          '--exts',
          '-f',
          '--filter',
          '-i',
          '--ignore',
          '-d',
          '--debounce',
          '--delay-run',
          '-s',
          '--signal',
          '--shell',
          '--on-busy-update',
          '--emit-events-to',
        ],
      },
    ],
  ],
  [
    'nodemon',
    [
      {
        path: [],
        payload: ['--exec', '-x'],
        payloadOnly: true,
        valued: ['-w', '--watch', '-e', '--ext', '-i', '--ignore', '-d', '--delay', '--signal', '--config'],
      },
    ],
  ],
  ['dbus-launch', [{ path: [], valued: ['--config-file', '--autolaunch'] }]],
  [
    'perf',
    [
      {
        path: ['record'],
        valued: [
          '-o',
          '--output',
          '-e',
          '--event',
          '-F',
          '--freq',
          '-p',
          '--pid',
          '-t',
          '--tid',
          '-c',
          '--count',
          '-g',
        ],
      },
      { path: ['stat'], valued: ['-e', '--event', '-p', '--pid', '-r', '--repeat', '-o', '--output'] },
      { path: ['trace'], valued: ['-e', '--event', '-p', '--pid', '-o', '--output'] },
    ],
  ],
]);
