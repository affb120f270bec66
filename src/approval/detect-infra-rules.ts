import { EMPTY_ENV, resolvePath } from './detect-access-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { classifyDeleteTarget, isBlockDevice } from './detect-paths.js';
import { operands } from './shell-segment.js';

/**
 * Infrastructure: containers with host access, deleting containers/volumes, cluster resources,
 * infrastructure-as-code destroys, cloud deletes, database drops through admin tools.
 */

/** Index of the first word that is not an option (or an option's value), after `from`. */
function subcommandIndex(argv: readonly string[], valueOptions: ReadonlySet<string>, from = 0): number {
  let i = from;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') return i + 1;
    if (!arg.startsWith('-') || arg === '-') return i;
    i += !arg.includes('=') && valueOptions.has(arg) ? 2 : 1;
  }
  return i;
}

const DOCKER_GLOBAL_VALUES = new Set([
  '-H',
  '--host',
  '-c',
  '--context',
  '--config',
  '-l',
  '--log-level',
  '--tlscacert',
  '--tlscert',
  '--tlskey',
  '--url',
  '--connection',
  '--identity',
  '--root',
  '--runroot',
  '--namespace',
  '-n',
  '--address',
  '-a',
]);
const RUN_VALUE_OPTIONS = new Set([
  '-e',
  '--env',
  '--env-file',
  '-p',
  '--publish',
  '--name',
  '-w',
  '--workdir',
  '-u',
  '--user',
  '--entrypoint',
  '-h',
  '--hostname',
  '-l',
  '--label',
  '-m',
  '--memory',
  '--cpus',
  '--platform',
  '--restart',
  '--network',
  '--net',
  '--pid',
  '--ipc',
  '--uts',
  '--userns',
  '--cgroupns',
  '--cap-add',
  '--cap-drop',
  '--device',
  '--security-opt',
  '-v',
  '--volume',
  '--mount',
  '--tmpfs',
  '--add-host',
  '--dns',
  '--log-driver',
  '--log-opt',
  '--gpus',
  '--shm-size',
  '--ulimit',
  '--pull',
  '--stop-signal',
  '--health-cmd',
  '--volumes-from',
]);
const HOST_NAMESPACES = new Set(['--pid', '--network', '--net', '--ipc', '--userns', '--uts', '--cgroupns']);
const POWERFUL_CAPS =
  /^(?:all|sys_admin|sys_ptrace|sys_module|sys_rawio|dac_read_search|dac_override|net_admin|bpf|perfmon|sys_boot)$/;
const DOCKER_SOCKET =
  /^\/(?:var\/)?run\/(?:docker|podman|containerd)[^/]*\.sock$|^\/(?:var\/)?run\/(?:docker|podman|containerd)\//;

/** Judges the host side of a bind mount: `/`, system directories, home, the Docker socket, HERMES_HOME. */
function hostMount(ctx: RuleContext, source: string, readOnly: boolean): void {
  if (source === '' || !(source.startsWith('/') || source.startsWith('~') || source.startsWith('$'))) return;
  const path = source.replace(/\/+$/, '') || '/';
  const resolved = resolvePath(path, undefined, EMPTY_ENV, undefined);
  if (resolved.matches.some((m) => m.area === 'hermes_home' || m.area === 'hermes_secret')) {
    if (readOnly) ctx.danger(DANGEROUS.hermesSecretRead);
    else ctx.hardline(HARDLINE.hermesWrite);
    return;
  }
  if (
    classifyDeleteTarget(path) !== 'other' ||
    DOCKER_SOCKET.test(path) ||
    path === '/proc' ||
    path === '/sys'
  ) {
    ctx.danger(DANGEROUS.containerHost);
    return;
  }
  if (resolved.matches.some((m) => m.read === 'dangerous' || m.write === 'hardline'))
    ctx.danger(DANGEROUS.containerHost);
}

/** `-v SRC:DST[:opts]`. */
function volume(ctx: RuleContext, spec: string): void {
  const parts = spec.split(':');
  if (parts.length < 2) return;
  const options = parts.length >= 3 ? (parts[parts.length - 1] as string) : '';
  hostMount(ctx, parts[0] as string, /(?:^|,)ro(?:,|$)/.test(options) || options === 'ro');
}

/** `--mount type=bind,source=/,target=/host[,readonly]`. */
function mount(ctx: RuleContext, spec: string): void {
  const fields = new Map<string, string>();
  for (const field of spec.split(',')) {
    const eq = field.indexOf('=');
    fields.set(eq < 0 ? field : field.slice(0, eq), eq < 0 ? 'true' : field.slice(eq + 1));
  }
  const source = fields.get('source') ?? fields.get('src');
  if (source === undefined) return;
  hostMount(ctx, source, fields.has('readonly') || fields.has('ro'));
}

function containerRun(ctx: RuleContext, from: number): void {
  const { argv, argl } = ctx.seg;
  for (let i = from; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-')) return;
    const lower = argl[i] as string;
    const eq = lower.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? argl[i + 1] : lower.slice(eq + 1);
    if (eq < 0 && RUN_VALUE_OPTIONS.has(name)) i += 1;
    if (name === '--privileged') ctx.danger(DANGEROUS.containerHost);
    else if (HOST_NAMESPACES.has(name) && value === 'host') ctx.danger(DANGEROUS.containerHost);
    else if (name === '--cap-add' && value !== undefined && POWERFUL_CAPS.test(value.replace(/^cap_/, '')))
      ctx.danger(DANGEROUS.containerHost);
    else if (name === '--security-opt' && value !== undefined && /unconfined|label[:=]disable/.test(value))
      ctx.danger(DANGEROUS.containerHost);
    else if (name === '--device' && value !== undefined && isBlockDevice(value.split(':')[0] ?? ''))
      ctx.danger(DANGEROUS.containerHost);
    else if ((name === '-v' || name === '--volume') && value !== undefined) volume(ctx, value);
    else if (name === '--mount' && value !== undefined) mount(ctx, value);
    else if (/^-[a-zA-Z]*v$/.test(arg) && value !== undefined && !arg.startsWith('--')) {
      volume(ctx, value);
      i += 1;
    }
  }
}

/** `docker rm -f`, `docker rm $(docker ps -aq)`, volume rm/prune, `system prune -a/--volumes`. */
function containerRemoval(
  ctx: RuleContext,
  sub: string,
  next: string | undefined,
  rest: readonly string[],
  index: number,
): void {
  const { args } = ctx.seg;
  const substituted = args.slice(index).some((word) => word.subs.length > 0);
  if (
    (sub === 'rm' || sub === 'rmi') &&
    (rest.some((a) => a === '-f' || a === '--force' || /^-[a-z]*f/.test(a)) || substituted)
  )
    ctx.danger(DANGEROUS.dockerPrune);
  if (sub === 'volume' && (next === 'rm' || next === 'remove' || next === 'prune'))
    ctx.danger(DANGEROUS.dockerPrune);
  if (
    sub === 'system' &&
    next === 'prune' &&
    rest.some((a) => a === '-a' || a === '--all' || a === '--volumes' || /^-[a-z]*a/.test(a))
  )
    ctx.danger(DANGEROUS.dockerPrune);
  if ((sub === 'container' || sub === 'image') && next === 'rm' && substituted)
    ctx.danger(DANGEROUS.dockerPrune);
}

function docker(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  let index = subcommandIndex(argv, DOCKER_GLOBAL_VALUES);
  let sub = argl[index];
  if (sub === 'container' && (argl[index + 1] === 'run' || argl[index + 1] === 'create')) {
    index += 1;
    sub = argl[index];
  }
  if (sub === undefined) return;
  if (sub === 'run' || sub === 'create') containerRun(ctx, index + 1);
  containerRemoval(ctx, sub, argl[index + 1], argl.slice(index + 1), index + 1);
  if (
    sub === 'compose' &&
    argl.slice(index + 1).includes('down') &&
    argl.some((a) => a === '-v' || a === '--volumes')
  )
    ctx.danger(DANGEROUS.dockerPrune);
}

function compose(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (argl.includes('down') && argl.some((a) => a === '-v' || a === '--volumes'))
    ctx.danger(DANGEROUS.dockerPrune);
}

const KUBE_GLOBAL_VALUES = new Set([
  '-n',
  '--namespace',
  '--context',
  '--kubeconfig',
  '--cluster',
  '--user',
  '-s',
  '--server',
  '--token',
  '--as',
  '--as-group',
  '--request-timeout',
  '-v',
  '--v',
]);

function kubectl(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const index = subcommandIndex(argv, KUBE_GLOBAL_VALUES);
  const sub = argl[index];
  const rest = argl.slice(index + 1);
  const dryRun = rest.some((a) => a.startsWith('--dry-run') && a !== '--dry-run=none');
  if (dryRun) return;
  if (sub === 'delete' || sub === 'drain') ctx.danger(DANGEROUS.kubeDelete);
  else if (sub === 'replace' && rest.includes('--force')) ctx.danger(DANGEROUS.kubeDelete);
  else if (sub === 'apply' && rest.some((a) => a === '--prune' || a.startsWith('--prune=')))
    ctx.danger(DANGEROUS.kubeDelete);
}

function helm(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const sub = argl[subcommandIndex(argv, KUBE_GLOBAL_VALUES)];
  if (sub === 'uninstall' || sub === 'delete' || sub === 'del' || sub === 'un') {
    if (!argl.includes('--dry-run')) ctx.danger(DANGEROUS.kubeDelete);
  }
}

function terraform(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const { argl } = ctx.seg;
  const sub = ops[0] === 'run-all' || ops[0] === 'run' ? ops[1] : ops[0];
  if (sub === 'destroy') ctx.danger(DANGEROUS.iacDestroy);
  if (
    sub === 'apply' &&
    argl.some((a) => /^--?auto-approve(?:=true)?$/.test(a) || a === '-destroy' || a === '--destroy')
  )
    ctx.danger(DANGEROUS.iacDestroy);
  if (sub === 'state' && (ops[1] === 'rm' || ops[1] === 'push')) ctx.danger(DANGEROUS.iacDestroy);
}

function pulumi(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const { argl } = ctx.seg;
  if (ops[0] === 'destroy' || (ops[0] === 'stack' && ops[1] === 'rm')) ctx.danger(DANGEROUS.iacDestroy);
  if (
    ops[0] === 'up' &&
    argl.some((a) => a === '--yes' || a === '-y' || a === '-f' || a === '--skip-preview')
  )
    ctx.danger(DANGEROUS.iacDestroy);
}

function cdk(ctx: RuleContext): void {
  if (operands(ctx.seg.argl)[0] === 'destroy') ctx.danger(DANGEROUS.iacDestroy);
}

const AWS_GLOBAL_VALUES = new Set([
  '--profile',
  '--region',
  '--output',
  '--endpoint-url',
  '--query',
  '--color',
  '--ca-bundle',
  '--cli-read-timeout',
  '--cli-connect-timeout',
]);
const CLOUD_DELETE_OP = /^(?:delete|terminate|remove|deregister|purge|destroy|disassociate|revoke|detach)-/;

function aws(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const index = subcommandIndex(argv, AWS_GLOBAL_VALUES);
  const service = argl[index];
  const op = argl[subcommandIndex(argv, AWS_GLOBAL_VALUES, index + 1)];
  if (service === undefined || op === undefined) return;
  if (service === 's3') {
    if (op === 'rm' || op === 'rb') ctx.danger(DANGEROUS.cloudDelete);
    else if ((op === 'sync' || op === 'mv') && argl.includes('--delete')) ctx.danger(DANGEROUS.cloudDelete);
    return;
  }
  if (CLOUD_DELETE_OP.test(op)) ctx.danger(DANGEROUS.cloudDelete);
}

/** `gcloud … delete`, `az … delete`, `doctl … delete`, `gsutil rm`, `gh repo delete`. */
function cloudVerb(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const { verb } = ctx.seg;
  if (verb === 'gsutil') {
    if (ops[0] === 'rm' || ops[0] === 'rb' || (ops[0] === 'rsync' && ctx.seg.argv.includes('-d')))
      ctx.danger(DANGEROUS.cloudDelete);
    return;
  }
  if (verb === 'gh') {
    if ((ops[0] === 'repo' || ops[0] === 'release') && ops[1] === 'delete') ctx.danger(DANGEROUS.cloudDelete);
    return;
  }
  if (ops.includes('delete') || ops.includes('rm') || (verb === 'doctl' && ops.includes('d')))
    ctx.danger(DANGEROUS.cloudDelete);
}

function mysqladmin(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (ops.includes('drop')) ctx.danger(DANGEROUS.sqlDrop);
}

export const infraRules: readonly VerbRules[] = [
  { verbs: ['docker', 'podman', 'nerdctl'], run: docker },
  { verbs: ['compose'], run: compose },
  { verbs: ['kubectl', 'oc'], run: kubectl },
  { verbs: ['helm'], run: helm },
  { verbs: ['terraform', 'tofu', 'terragrunt'], run: terraform },
  { verbs: ['pulumi'], run: pulumi },
  { verbs: ['cdk', 'cdktf'], run: cdk },
  { verbs: ['aws'], run: aws },
  { verbs: ['gcloud', 'az', 'doctl', 'gsutil', 'gh'], run: cloudVerb },
  { verbs: ['dropdb'], run: (ctx) => ctx.danger(DANGEROUS.sqlDrop) },
  { verbs: ['mysqladmin'], run: mysqladmin },
];
