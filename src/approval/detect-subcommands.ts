import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { resolveLongOption, type Segment } from './shell-segment.js';
import { staticWord } from './shell-word-builder.js';

/**
 * Global options that come before a tool's subcommand (`git -C dir push`, `pip --proxy X
 * uninstall`, `kubectl --context x -n ns delete`, `docker -H host rm`). The family rules look
 * for the subcommand as the first operand; the detector also hands them the command with these
 * options taken out, so a value option they do not know cannot hide the subcommand.
 */

interface ToolSpec {
  /** Short options that take a value (`-C dir`, `-n ns`). */
  readonly valueShort: string;
  /** Long options (with dashes) that take a value unless written `--opt=value`. */
  readonly valueLong: readonly string[];
  /** Long options that take no value (for prefix resolution when the tool abbreviates). */
  readonly flagLong?: readonly string[];
  /** The tool accepts unambiguous prefixes of long options (optparse, nopt, getopt_long). */
  readonly abbrev?: boolean;
}

const NPM_VALUES = [
  '--prefix',
  '--dir',
  '--cwd',
  '--workspace',
  '--filter',
  '--registry',
  '--cache',
  '--userconfig',
  '--globalconfig',
  '--loglevel',
  '--proxy',
  '--https-proxy',
  '--otp',
  '--tag',
  '--access',
  '--scope',
  '--include',
  '--omit',
  '--install-strategy',
  '--script-shell',
  '--cache-folder',
  '--modules-folder',
  '--mutex',
  '--network-timeout',
  '--global-folder',
  '--link-folder',
  '--use-yarnrc',
  '--reporter',
  '--workspace-concurrency',
  '--config',
  '--env-file',
  '--preload',
];
const NPM_FLAGS = [
  '--global',
  '--save',
  '--save-dev',
  '--save-exact',
  '--yes',
  '--no',
  '--silent',
  '--quiet',
  '--verbose',
  '--force',
  '--offline',
  '--prefer-offline',
  '--ignore-scripts',
  '--foreground-scripts',
  '--workspaces',
  '--recursive',
  '--workspace-root',
  '--frozen-lockfile',
  '--json',
  '--dry-run',
  '--help',
  '--version',
];

const KUBE_VALUES = [
  '--kubeconfig',
  '--context',
  '--cluster',
  '--user',
  '--namespace',
  '--server',
  '--token',
  '--as',
  '--as-group',
  '--as-uid',
  '--certificate-authority',
  '--client-certificate',
  '--client-key',
  '--cache-dir',
  '--request-timeout',
  '--tls-server-name',
  '--password',
  '--username',
  '--profile',
  '--profile-output',
  '--log-file',
  '--log-dir',
  '--vmodule',
  '--log-flush-frequency',
  '--v',
];

const TOOLS: ReadonlyMap<string, ToolSpec> = new Map<string, ToolSpec>([
  [
    'git',
    {
      valueShort: 'Cc',
      valueLong: [
        '--git-dir',
        '--work-tree',
        '--namespace',
        '--config-env',
        '--super-prefix',
        '--attr-source',
      ],
    },
  ],
  [
    'docker',
    {
      valueShort: 'cHl',
      valueLong: ['--config', '--context', '--host', '--log-level', '--tlscacert', '--tlscert', '--tlskey'],
    },
  ],
  [
    'podman',
    {
      valueShort: 'c',
      valueLong: [
        '--url',
        '--connection',
        '--identity',
        '--log-level',
        '--root',
        '--runroot',
        '--storage-driver',
        '--storage-opt',
        '--cgroup-manager',
        '--module',
        '--network-cmd-path',
        '--network-config-dir',
        '--tmpdir',
        '--events-backend',
        '--runtime',
        '--conmon',
        '--hooks-dir',
        '--volumepath',
        '--imagestore',
        '--ssh',
        '--db-backend',
        '--config',
      ],
    },
  ],
  ['kubectl', { valueShort: 'nsv', valueLong: KUBE_VALUES }],
  ['oc', { valueShort: 'nsv', valueLong: KUBE_VALUES }],
  [
    'helm',
    {
      valueShort: 'n',
      valueLong: [
        '--kube-context',
        '--kubeconfig',
        '--namespace',
        '--registry-config',
        '--repository-config',
        '--repository-cache',
        '--kube-apiserver',
        '--kube-as-user',
        '--kube-as-group',
        '--kube-ca-file',
        '--kube-token',
        '--burst-limit',
        '--qps',
        '--kube-tls-server-name',
      ],
    },
  ],
  ['npm', { valueShort: 'w', valueLong: NPM_VALUES, flagLong: NPM_FLAGS, abbrev: true }],
  ['pnpm', { valueShort: 'CF', valueLong: NPM_VALUES, flagLong: NPM_FLAGS, abbrev: true }],
  ['yarn', { valueShort: '', valueLong: NPM_VALUES, flagLong: NPM_FLAGS, abbrev: true }],
  ['bun', { valueShort: 'cr', valueLong: NPM_VALUES, flagLong: NPM_FLAGS }],
  [
    'pip',
    {
      valueShort: '',
      valueLong: [
        '--python',
        '--log',
        '--keyring-provider',
        '--proxy',
        '--retries',
        '--timeout',
        '--exists-action',
        '--trusted-host',
        '--cert',
        '--client-cert',
        '--cache-dir',
        '--use-feature',
        '--use-deprecated',
        '--resume-retries',
      ],
      flagLong: [
        '--debug',
        '--isolated',
        '--require-virtualenv',
        '--verbose',
        '--version',
        '--quiet',
        '--no-input',
        '--no-cache-dir',
        '--disable-pip-version-check',
        '--no-color',
        '--no-python-version-warning',
        '--help',
      ],
      abbrev: true,
    },
  ],
  [
    'apt-get',
    {
      valueShort: 'oct',
      valueLong: ['--option', '--config-file', '--target-release', '--default-release'],
      abbrev: true,
    },
  ],
  ['apt', { valueShort: 'oct', valueLong: ['--option', '--config-file', '--target-release'], abbrev: true }],
  [
    'dnf',
    {
      valueShort: 'cxRde',
      valueLong: [
        '--config',
        '--installroot',
        '--releasever',
        '--setopt',
        '--exclude',
        '--enablerepo',
        '--disablerepo',
        '--repo',
        '--repofrompath',
        '--forcearch',
        '--debuglevel',
        '--errorlevel',
        '--color',
        '--destdir',
        '--downloaddir',
      ],
    },
  ],
  [
    'yum',
    {
      valueShort: 'cxRde',
      valueLong: [
        '--config',
        '--installroot',
        '--releasever',
        '--setopt',
        '--exclude',
        '--enablerepo',
        '--disablerepo',
      ],
    },
  ],
  ['cargo', { valueShort: 'CZ', valueLong: ['--config', '--color'] }],
  [
    'aws',
    {
      valueShort: '',
      valueLong: [
        '--profile',
        '--region',
        '--output',
        '--endpoint-url',
        '--query',
        '--cli-read-timeout',
        '--cli-connect-timeout',
        '--ca-bundle',
        '--color',
        '--cli-binary-format',
      ],
    },
  ],
  [
    'gcloud',
    {
      valueShort: '',
      valueLong: [
        '--project',
        '--account',
        '--configuration',
        '--verbosity',
        '--format',
        '--impersonate-service-account',
        '--billing-project',
        '--flags-file',
        '--trace-token',
        '--flatten',
      ],
    },
  ],
  ['az', { valueShort: 'o', valueLong: ['--subscription', '--output', '--query'] }],
  ['terraform', { valueShort: '', valueLong: [] }],
  ['tofu', { valueShort: '', valueLong: [] }],
  [
    'redis-cli',
    {
      valueShort: 'hpsaunridD',
      valueLong: [
        '--user',
        '--pass',
        '--sni',
        '--cacert',
        '--cacertdir',
        '--cert',
        '--key',
        '--tls-ciphers',
        '--tls-ciphersuites',
        '--rdb',
        '--pipe-timeout',
        '--pattern',
        '--count',
        '--eval',
        '--cluster',
      ],
    },
  ],
]);

/** Tools whose subcommand decides what they do (for the unresolved-subcommand rule). */
export const SUBCOMMAND_TOOLS: readonly string[] = [...TOOLS.keys()];

/**
 * Index in `argv` of the subcommand, and of the alternative reading when an unknown long
 * option might have taken the next word as its value (-1: no alternative).
 */
export function subcommandIndex(
  family: string,
  argv: readonly string[],
): { index: number; alternative: number } {
  const spec = TOOLS.get(family);
  if (spec === undefined) return { index: -1, alternative: -1 };
  let alternative = -1;
  let i = 0;
  if (family === 'cargo' && argv[0]?.startsWith('+')) i = 1;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') return { index: i + 1 < argv.length ? i + 1 : -1, alternative };
    if (!arg.startsWith('-') || arg === '-') return { index: i, alternative };
    if (arg.startsWith('--')) {
      const eq = arg.includes('=');
      const resolved =
        spec.abbrev === true
          ? resolveLongOption(arg, [...spec.valueLong, ...(spec.flagLong ?? [])])
          : undefined;
      const name = resolved ?? (eq ? arg.slice(0, arg.indexOf('=')) : arg).toLowerCase();
      if (spec.valueLong.includes(name)) i += eq ? 1 : 2;
      else {
        if (!eq && alternative < 0 && resolved === undefined && !(spec.flagLong ?? []).includes(name)) {
          alternative = i + 2;
        }
        i += 1;
      }
      continue;
    }
    const letters = arg.slice(1);
    let consumes = false;
    for (let k = 0; k < letters.length; k += 1) {
      if (letters[k] === '=') break;
      if (spec.valueShort.includes(letters[k] as string)) {
        consumes = k === letters.length - 1;
        break;
      }
    }
    i += consumes ? 2 : 1;
  }
  return { index: -1, alternative };
}

function derived(seg: Segment, index: number, verb = seg.verb, family = seg.family): Segment {
  const args = seg.args.slice(index);
  const argv = seg.argv.slice(index);
  return {
    ...seg,
    verb,
    family,
    verbWord: verb === seg.verb ? seg.verbWord : staticWord(verb),
    args,
    argv,
    argl: seg.argl.slice(index),
  };
}

/** `python -m pip …` → the index of pip's first argument, or -1. */
function pipModuleAt(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-m') return /^pip[0-9.]*$/.test(argv[i + 1] ?? '') ? i + 2 : -1;
    if (arg === '-mpip') return i + 1;
    if (!arg.startsWith('-')) return -1;
  }
  return -1;
}

/**
 * The same command without the global options before its subcommand (one per plausible
 * reading), and `python -m pip …` as `pip …`. Empty when there is nothing to take out.
 */
export function canonicalSegments(seg: Segment): Segment[] {
  if (seg.family === 'python') {
    const at = pipModuleAt(seg.argv);
    if (at < 0) return [];
    const pip = derived(seg, at, 'pip', 'pip');
    return [pip, ...canonicalSegments(pip)];
  }
  if (!TOOLS.has(seg.family) || seg.argv.length === 0 || !(seg.argv[0] as string).startsWith('-')) return [];
  const { index, alternative } = subcommandIndex(seg.family, seg.argv);
  const out: Segment[] = [];
  if (index > 0) out.push(derived(seg, index));
  if (alternative > 0 && alternative !== index && alternative < seg.argv.length)
    out.push(derived(seg, alternative));
  return out;
}

/** `git $sub`, `docker "$action" x`, `kubectl $verb pod`: what the tool will do is not known. */
function unresolvedSubcommand(ctx: RuleContext): void {
  const { index } = subcommandIndex(ctx.seg.family, ctx.seg.argv);
  if (index >= 0 && ctx.seg.args[index]?.expanded === true) ctx.danger(DANGEROUS.unresolvedSubcommand);
}

export const subcommandRules: readonly VerbRules[] = [{ verbs: SUBCOMMAND_TOOLS, run: unresolvedSubcommand }];
