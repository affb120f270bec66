import type { RuleContext, VerbRules } from './detect-context.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { DATABASE_CLIENTS } from './detect-sql.js';
import { operands, verbName } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * The gateway protecting itself and its infrastructure: stopping or restarting it, its
 * container runtime and daemon redirects, and the Redis it keeps queues and approvals in.
 */

function detached(ctx: RuleContext): boolean {
  const { seg } = ctx;
  return (
    seg.background || ctx.listHasDisown || seg.wrappers.some((w) => w.name === 'nohup' || w.name === 'setsid')
  );
}

/** Hermes Agent's CLI: `hermes [flags] gateway stop|restart|run`, `hermes update`. */
function hermes(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (ops[0] === 'update') ctx.danger(DANGEROUS.hermesUpdate);
  if (ops[0] === 'pairing' && ops[1] !== undefined && ops[1] !== 'list') ctx.hardline(HARDLINE.pairingChange);
  const at = ops.indexOf('gateway');
  if (at < 0) return;
  const action = ops[at + 1];
  if (action === 'stop' || action === 'restart') ctx.danger(DANGEROUS.gatewayStop);
  if (action === 'run' && detached(ctx)) ctx.danger(DANGEROUS.gatewayDetached);
}

/** This project's CLI, run directly or through node/tsx. */
function gatewayCli(ctx: RuleContext, args: readonly string[]): void {
  const ops = operands(args);
  const action = ops[0];
  if (action === 'pairing' && ops[1] !== undefined && ops[1] !== 'list') ctx.hardline(HARDLINE.pairingChange);
  if (action === 'stop' || action === 'restart' || action === 'kill') ctx.danger(DANGEROUS.gatewayStop);
  if ((action === 'start' || action === 'worker') && detached(ctx)) ctx.danger(DANGEROUS.gatewayDetached);
}

function nodeRunsGateway(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const script = ops[0];
  if (script === undefined || verbName(script) !== 'hermes-gateway') return;
  gatewayCli(ctx, ops.slice(1));
}

function pm2(ctx: RuleContext): void {
  const [action, ...rest] = operands(ctx.seg.argl);
  if (action === undefined || !['stop', 'restart', 'delete', 'kill', 'reload'].includes(action)) return;
  if (action === 'kill' || rest.some((name) => name.includes('hermes') || name === 'all')) {
    ctx.danger(DANGEROUS.gatewayStop);
  }
}

function launchctl(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  const action = operands(argl)[0];
  const stops = ['stop', 'kickstart', 'bootout', 'unload', 'kill', 'disable', 'remove'];
  if (action !== undefined && stops.includes(action) && argl.some((arg) => arg.includes('hermes'))) {
    ctx.danger(DANGEROUS.launchctl);
  }
}

const DOCKER_VALUE_OPTIONS = new Set([
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
]);
const PODMAN_VALUE_OPTIONS = new Set([
  '--url',
  '--connection',
  '-c',
  '--identity',
  '--log-level',
  '--root',
  '--runroot',
  '--storage-driver',
  '--cgroup-manager',
  '--module',
  '--network-cmd-path',
  '--tmpdir',
  '--events-backend',
  '--runtime',
]);
const COMPOSE_VALUE_OPTIONS = new Set([
  '-f',
  '--file',
  '-p',
  '--project-name',
  '--profile',
  '--env-file',
  '--project-directory',
  '--ansi',
  '--progress',
  '--parallel',
]);
const EXEC_VALUE_OPTIONS = new Set([
  '-e',
  '--env',
  '-u',
  '--user',
  '-w',
  '--workdir',
  '--env-file',
  '--detach-keys',
]);
const LIFECYCLE = new Set(['restart', 'stop', 'kill']);

/** Global options of docker/podman up to the subcommand; returns the subcommand index. */
function globalOptions(
  ctx: RuleContext,
  valueOptions: ReadonlySet<string>,
  onOption: (name: string, hasValue: boolean) => void,
): number {
  const { argv } = ctx.seg;
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-') || arg === '-') break;
    if (arg === '--') return i + 1;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const takesValue = eq < 0 && valueOptions.has(name);
    onOption(name, eq >= 0 || (takesValue && i + 1 < argv.length));
    i += takesValue ? 2 : 1;
  }
  return i;
}

function compose(ctx: RuleContext, args: readonly string[]): void {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && COMPOSE_VALUE_OPTIONS.has(arg)) i += 1;
      continue;
    }
    if (['restart', 'stop', 'kill', 'down'].includes(arg.toLowerCase()))
      ctx.danger(DANGEROUS.composeLifecycle);
    return;
  }
}

/** `docker exec [options] CONTAINER command…`: the command is examined too. */
function containerExec(ctx: RuleContext, from: number): void {
  const { args, argv } = ctx.seg;
  let i = from;
  while (i < argv.length && (argv[i] as string).startsWith('-')) {
    const arg = argv[i] as string;
    i += !arg.includes('=') && EXEC_VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  const command: ShellWord[] = args.slice(i + 1);
  if (command.length > 0) ctx.scanWords(command);
}

function containerLifecycle(ctx: RuleContext, index: number): void {
  const { argl } = ctx.seg;
  let sub = argl[index];
  let at = index;
  if (sub === 'container') {
    at += 1;
    sub = argl[at];
  }
  if (sub === undefined) return;
  if (LIFECYCLE.has(sub)) {
    ctx.danger(DANGEROUS.dockerLifecycle);
    if (argl.slice(at + 1).some((name) => name.includes('hermes'))) ctx.danger(DANGEROUS.gatewayStop);
  } else if (sub === 'compose') {
    compose(ctx, ctx.seg.argv.slice(at + 1));
  } else if (sub === 'exec') {
    containerExec(ctx, at + 1);
  }
}

function docker(ctx: RuleContext): void {
  const index = globalOptions(ctx, DOCKER_VALUE_OPTIONS, (name, hasValue) => {
    if ((name === '-H' || name === '--host') && hasValue) ctx.danger(DANGEROUS.dockerHost);
    if ((name === '-c' || name === '--context') && hasValue) ctx.danger(DANGEROUS.dockerContextFlag);
  });
  const { argl } = ctx.seg;
  if (argl[index] === 'context' && argl[index + 1] === 'use') ctx.danger(DANGEROUS.dockerContextUse);
  containerLifecycle(ctx, index);
}

function podman(ctx: RuleContext): void {
  const index = globalOptions(ctx, PODMAN_VALUE_OPTIONS, (name, hasValue) => {
    if ((name === '--url' || name === '--connection' || name === '-c' || name === '--identity') && hasValue) {
      ctx.danger(DANGEROUS.podmanRemoteFlag);
    }
    if (name === '-r' || name === '--remote') ctx.danger(DANGEROUS.podmanRemoteMode);
  });
  containerLifecycle(ctx, index);
}

function kubectl(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  if (!operands(argl).includes('exec')) return;
  const dashes = argl.indexOf('--');
  if (dashes >= 0 && dashes + 1 < args.length) ctx.scanWords(args.slice(dashes + 1));
}

/** Redis commands that wipe or stop the gateway's Redis (also fed through stdin). */
export function redisHazards(ctx: RuleContext, words: readonly string[]): void {
  for (const word of words) {
    if (word === 'flushall' || word === 'flushdb') ctx.danger(DANGEROUS.redisFlush);
    else if (word === 'shutdown') ctx.danger(DANGEROUS.redisShutdown);
  }
}

/** Lower-cased words of text fed to redis-cli on stdin. */
export function redisWords(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9_-]+/);
}

function redisCli(ctx: RuleContext): void {
  redisHazards(ctx, operands(ctx.seg.argl));
  for (const redirect of ctx.seg.redirects) {
    if (redirect.body !== undefined) redisHazards(ctx, redisWords(redirect.body));
  }
}

/** Tables of the gateway's state database that decide who may do what. */
const GATEWAY_TABLES =
  /\b(?:approval_yolo|approval_grants|approval_requests|paired_users|pairing_codes|action_prompts|parked_turns)\b/;
const SQL_WRITE = /\b(?:insert|update|replace|delete|drop|alter|truncate|create|attach|upsert|vacuum)\b/;

/** SQL that writes the gateway's approval, pairing or session tables, wherever a client runs it. */
export function writesGatewayTables(text: string): boolean {
  const lower = text.toLowerCase();
  return GATEWAY_TABLES.test(lower) && SQL_WRITE.test(lower);
}

function bodies(ctx: RuleContext): string[] {
  const out: string[] = [];
  for (const redirect of ctx.seg.redirects) if (redirect.body !== undefined) out.push(redirect.body);
  return out;
}

function gatewayTablesSql(ctx: RuleContext): void {
  if ([...ctx.seg.argv, ...bodies(ctx)].some(writesGatewayTables)) ctx.hardline(HARDLINE.hermesDb);
}

const HERMES_MENTION = /\.hermes-gateway|hermes_home/;
const CODE_WRITES =
  /\bopen\s*\([^)]*['"][wax+]|write|unlink|remove|rename|symlink|chmod|truncate|rmtree|rmsync|rm_rf|appendfile|mkdir|\bfs\.rm\b|shutil|os\.system|subprocess|execsync|spawn/;
const CODE_DB = /sqlite|better-sqlite3|\.connect\s*\(|\bdatabase\s*\(/;
const CODE_NETWORK =
  /requests\.|urllib|http\.client|httpx|aiohttp|socket|fetch\s*\(|axios|net\.connect|https?\.request|lwp::|net::http|curl|smtplib/;
const CODE_SECRETS =
  /\/proc\/[^'"\s]*\/(?:environ|mem)|\.ssh\/id_|\.aws\/credentials|\.kube\/config|\.netrc|\.git-credentials/;

/**
 * Inline programs (`python -c`, `node -e`, heredocs into an interpreter) that name HERMES_HOME:
 * writing it or opening its database is hardline, reading it asks; reading a secret and
 * talking to the network in the same program is exfiltration.
 */
function inlineSecrets(ctx: RuleContext): void {
  const spec = INTERPRETERS.get(ctx.seg.family);
  if (spec === undefined) return;
  const program = parseInterpreter(ctx.seg.argv, spec);
  const texts = [...program.code];
  if (program.code.length === 0 && (program.script === undefined || program.script === '-'))
    texts.push(...bodies(ctx));
  for (const code of texts) {
    const lower = code.toLowerCase();
    const hermes = HERMES_MENTION.test(lower);
    const secrets = CODE_SECRETS.test(lower);
    if (!hermes && !secrets && !writesGatewayTables(lower)) continue;
    if (writesGatewayTables(lower)) ctx.hardline(HARDLINE.hermesDb);
    if (hermes) {
      if (CODE_DB.test(lower)) ctx.hardline(HARDLINE.hermesDb);
      else if (CODE_WRITES.test(lower)) ctx.hardline(HARDLINE.hermesWrite);
      else ctx.danger(DANGEROUS.hermesSecretRead);
    }
    if (secrets) ctx.danger(/\/proc\//.test(lower) ? DANGEROUS.procSecretRead : DANGEROUS.secretRead);
    if (CODE_NETWORK.test(lower)) {
      if (hermes || /\/proc\//.test(lower)) ctx.hardline(HARDLINE.hermesExfil);
      else if (secrets) ctx.danger(DANGEROUS.exfil);
    }
  }
  if (
    program.module === 'sqlite3' &&
    program.files.some((f) => HERMES_MENTION.test(f) || f.includes('state.db'))
  )
    ctx.hardline(HARDLINE.hermesDb);
}

/** awk and sed programs are text: one that names HERMES_HOME reads it, or writes it with `>`/`w`. */
function programMentions(ctx: RuleContext): void {
  const { argv, verb } = ctx.seg;
  const programs = argv.filter((arg) => HERMES_MENTION.test(arg.toLowerCase()) && /\s|[{};]/.test(arg));
  if (programs.length === 0) return;
  const writes =
    verb === 'awk' || ctx.seg.family === 'awk'
      ? programs.some((p) => /[^<>=!]>|\|\s*"|system\s*\(/.test(p))
      : programs.some((p) => /(?:^|[;{}\s/])[wW]\s|\/[gip0-9]*w\s/.test(p));
  if (writes) ctx.hardline(HARDLINE.hermesWrite);
  else ctx.danger(DANGEROUS.hermesSecretRead);
}

export const gatewayRules: readonly VerbRules[] = [
  { verbs: ['awk', 'sed', 'gsed'], run: programMentions },
  { verbs: [...DATABASE_CLIENTS, 'sqlite-utils', 'litecli', 'datasette'], run: gatewayTablesSql },
  { verbs: [...INTERPRETERS.keys()], run: inlineSecrets },
  { verbs: ['hermes'], run: hermes },
  { verbs: ['hermes-gateway'], run: (ctx) => gatewayCli(ctx, ctx.seg.argl) },
  { verbs: ['node', 'tsx', 'bun'], run: nodeRunsGateway },
  { verbs: ['pm2'], run: pm2 },
  { verbs: ['launchctl'], run: launchctl },
  { verbs: ['docker'], run: docker },
  { verbs: ['podman'], run: podman },
  { verbs: ['compose'], run: (ctx) => compose(ctx, ctx.seg.argv) },
  { verbs: ['kubectl', 'oc'], run: kubectl },
  { verbs: ['redis-cli'], run: redisCli },
];
