import { accessFindings, EMPTY_ENV, holdsSecrets, resolvePath } from './detect-access-rules.js';
import type { RuleContext } from './detect-context.js';
import {
  exfilFinding,
  exfilRule,
  type FlowEnv,
  higher,
  outputSecrecy,
  type SecretLevel,
  type SubLists,
  substitutionSecrecy,
  uploadOf,
} from './detect-exfil-rules.js';
import { writesGatewayTables } from './detect-gateway-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { FILE_DB_CLIENTS, pathUses } from './detect-path-uses.js';
import { DATABASE_CLIENTS } from './detect-sql.js';
import { HERMES_HOME_ALIAS } from './normalize-command.js';
import { operands, peelCommand, type Segment } from './shell-segment.js';
import type { ShellPipeline, ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * Rules about a whole command list, in order: what `cd` and variables set earlier mean for
 * later commands (`cd $HERMES_HOME && sqlite3 state.db`, `H=$HERMES_HOME; rm $H/x`), secrets
 * that reach the network across a pipeline or through a staged file, a download that is run in
 * the same command, a reverse shell built from a pipeline, and `ps | xargs kill`.
 */

class ListState implements FlowEnv {
  cwd: string | undefined;
  readonly hermesVars = new Set<string>();
  readonly secretFiles = new Map<string, SecretLevel>();
  readonly secretVars = new Map<string, SecretLevel>();
  readonly secretTexts = new Map<string, SecretLevel>();
  readonly downloads = new Set<string>();

  get trivial(): boolean {
    return this.cwd === undefined && this.hermesVars.size === 0;
  }
}

function stripDot(path: string): string {
  let out = path;
  while (out.startsWith('./')) out = out.slice(2);
  return out;
}

function basename(path: string): string {
  const clean = path.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1);
}

/** Mentions HERMES_HOME (folded or not). */
function mentionsHermes(text: string): boolean {
  return (
    text.includes(HERMES_HOME_ALIAS) || text.includes('hermes_home') || text.includes('/.hermes-gateway')
  );
}

function cdTarget(seg: Segment, state: ListState): void {
  const ops = operands(seg.argl);
  const target = ops[0];
  if (target === undefined) {
    state.cwd = '~';
    return;
  }
  if (target === '-') {
    state.cwd = undefined;
    return;
  }
  let dir = target;
  if (dir.startsWith('$')) {
    const name = /^\$\{?([a-z_][a-z0-9_]*)\}?/.exec(dir);
    if (name !== null && state.hermesVars.has(name[1] as string))
      dir = HERMES_HOME_ALIAS + dir.slice(name[0].length);
  }
  if (mentionsHermes(dir) && !dir.startsWith(HERMES_HOME_ALIAS)) {
    const resolved = resolvePath(dir, seg.args[seg.argl.indexOf(target)], state, undefined);
    if (resolved.matches.length > 0) dir = HERMES_HOME_ALIAS;
  }
  if (dir.startsWith('/') || dir.startsWith('~')) state.cwd = dir;
  else if (state.cwd !== undefined) state.cwd = `${state.cwd}/${dir}`;
  else if (/^\.?hermes-gateway(?:\/|$)/.test(dir) || dir.startsWith('.ssh') || dir.startsWith('.aws'))
    state.cwd = `~/${dir}`;
  else state.cwd = undefined;
}

/** `NAME=value`, `export NAME=value`, `for NAME in …`: which names now hold HERMES paths or secrets. */
function bindings(seg: Segment, state: ListState, subLists: SubLists): void {
  const assignments =
    seg.verb === ''
      ? seg.assignments
      : seg.verb === 'export' || seg.verb === 'declare' || seg.verb === 'local' || seg.verb === 'readonly'
        ? seg.argv.filter((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a))
        : [];
  for (const text of assignments) {
    const eq = text.indexOf('=');
    const name = text.slice(0, eq).toLowerCase();
    const value = text.slice(eq + 1).toLowerCase();
    if (
      mentionsHermes(value) ||
      (value.startsWith('$') && state.hermesVars.has(value.replace(/^\$\{?|\}$/g, '')))
    )
      state.hermesVars.add(name);
    else state.hermesVars.delete(name);
    const word = seg.command.words.find((w) => w.text === text || w.text.startsWith(`${text.slice(0, eq)}=`));
    const level = word === undefined ? undefined : substitutionSecrecy([word], state, subLists);
    if (level !== undefined) {
      state.secretVars.set(name, level);
      if (state.secretTexts.size < 16) state.secretTexts.set(value, level);
    } else state.secretVars.delete(name);
  }
  if (seg.verb === '' && seg.argl[0] === 'for' && seg.argl[2] === 'in') {
    const name = seg.argl[1] as string;
    if (seg.argl.slice(3).some(mentionsHermes)) state.hermesVars.add(name);
  }
}

/** Files a fetcher writes: `curl -o F`, `curl -O URL`, `wget URL`, `wget -O F`, `curl URL > F`. */
function recordDownloads(seg: Segment, state: ListState): void {
  const { verb, argv } = seg;
  if (verb !== 'curl' && verb !== 'wget' && verb !== 'aria2c' && verb !== 'fetch') return;
  const urls = seg.argl.filter((a) => /^(?:https?|ftp):\/\//.test(a));
  let named = false;
  const add = (file: string | undefined): void => {
    if (file === undefined || file === '-' || file === '/dev/null') return;
    state.downloads.add(stripDot(file.toLowerCase()));
    named = true;
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const output =
      verb === 'wget' ? arg === '-O' || arg === '--output-document' : arg === '-o' || arg === '--output';
    if (output || (verb === 'aria2c' && arg === '-o')) add(argv[i + 1]);
    else if (arg.startsWith('--output=') || arg.startsWith('--output-document='))
      add(arg.slice(arg.indexOf('=') + 1));
    else if (/^-[a-zA-Z]*o$/.test(arg) && verb === 'curl') add(argv[i + 1]);
    else if (verb === 'curl' ? /^-o./.test(arg) : /^-O./.test(arg)) add(arg.slice(2));
  }
  for (const redirect of seg.redirects) {
    if (
      (redirect.op === '>' || redirect.op === '>>' || redirect.op === '>|') &&
      redirect.target !== undefined
    )
      add(redirect.target.text);
  }
  const remoteName =
    verb === 'wget' || argv.some((a) => a === '--remote-name' || /^-[a-zA-Z]*O[a-zA-Z]*$/.test(a));
  if (!named && remoteName) for (const url of urls) state.downloads.add(basename(url));
}

const RUNNERS = new Set([
  'shell',
  'python',
  'node',
  'perl',
  'ruby',
  'php',
  'source',
  '.',
  'deno',
  'bun',
  'powershell',
]);

function runsDownload(seg: Segment, downloads: ReadonlySet<string>): boolean {
  const has = (text: string): boolean => {
    const path = stripDot(text.toLowerCase());
    return downloads.has(path) || downloads.has(basename(path));
  };
  const verbText = seg.verbWord?.text;
  if (verbText?.includes('/') && has(verbText)) return true;
  if (!RUNNERS.has(seg.family) && !RUNNERS.has(seg.verb)) return false;
  const script = seg.argl.find((a) => !a.startsWith('-'));
  return script !== undefined && has(script);
}

/** Records files a secret source writes (`cp ~/.ssh/id_rsa /tmp/k`, `tar czf k.tgz ~/.ssh`, `env > e`). */
function recordStaged(seg: Segment, state: ListState, subLists: SubLists): void {
  const hasWrite =
    seg.redirects.some((r) => r.op !== '<' && r.op !== '<<' && r.op !== '<<<' && r.op !== '<<-') ||
    seg.verb === 'cp' ||
    seg.verb === 'tar' ||
    seg.verb === 'zip' ||
    seg.verb === 'rsync' ||
    seg.verb === 'base64' ||
    seg.verb === 'gzip' ||
    seg.verb === 'openssl' ||
    seg.verb === 'ln' ||
    seg.verb === 'install';
  if (!hasWrite) return;
  const level = outputSecrecy(seg, state, subLists);
  if (level === undefined) return;
  for (const used of pathUses(seg).paths) {
    if (used.use === 'write') state.secretFiles.set(stripDot(used.path), level);
  }
}

const NETWORK_CLIENTS = new Set(['nc', 'ncat', 'netcat', 'cryptcat', 'socat', 'telnet', 'pwncat']);
const PROCESS_FILTERS = new Set([
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'pgrep',
  'pidof',
  'lsof',
  'fuser',
  'head',
  'jq',
]);

function isShellStage(seg: Segment): boolean {
  if (seg.family === 'shell') return true;
  if (['python', 'perl', 'ruby', 'php', 'node'].includes(seg.family))
    return seg.argv.length === 0 || seg.argl.includes('-i');
  return false;
}

function isNetworkStage(seg: Segment): boolean {
  return NETWORK_CLIENTS.has(seg.verb) || (seg.verb === 'openssl' && seg.argl.includes('s_client'));
}

/** `xargs [options] kill …`. */
function xargsKills(seg: Segment): boolean {
  if (seg.verb !== 'xargs') return false;
  const inner = seg.argl.find((a, i) => !a.startsWith('-') && !/^-[nPLsdIE]$/.test(seg.argl[i - 1] ?? ''));
  return inner === 'kill' || inner === 'pkill' || inner === 'killall';
}

function awkFilters(seg: Segment): boolean {
  if (seg.verb !== 'awk') return false;
  return seg.argv.some((a) => /\/.+\/|==|~|\$\d+\s*[<>]/.test(a));
}

/** A word the detector builds itself (a path handed on by a pipeline). */
export function plainWord(text: string): ShellWord {
  return staticWord(text);
}

const XARGS_VALUE_LETTERS = 'adEILnPs';

/** The command `xargs` runs, as words (options of xargs skipped). */
function xargsCommand(seg: Segment): readonly ShellWord[] {
  const { argv, args } = seg;
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') return args.slice(i + 1);
    if (!arg.startsWith('-') || arg === '-') break;
    i += !arg.startsWith('--') && arg.length === 2 && XARGS_VALUE_LETTERS.includes(arg[1] as string) ? 2 : 1;
  }
  return args.slice(i);
}

/** Paths an upstream stage hands to `xargs`: `find DIR …` (files below DIR), `echo`/`printf` words. */
function handedPaths(seg: Segment): string[] {
  if (seg.verb === 'find' || seg.verb === 'gfind') {
    const out: string[] = [];
    for (const arg of seg.argl) {
      if (arg.startsWith('-') || arg === '(' || arg === '!') break;
      if (holdsSecrets(arg)) out.push(`${arg.replace(/\/+$/, '')}/*`);
    }
    return out;
  }
  if (seg.verb === 'echo' || seg.verb === 'printf')
    return seg.argl.filter((a) => !a.startsWith('-') && (a.includes('/') || a.startsWith('~')));
  return [];
}

/** `find ~/.hermes-gateway | xargs cat`, `echo ~/.ssh/id_rsa | xargs base64`: judge the paths as the command's own. */
function xargsPaths(stages: readonly Segment[][], contextFor: (seg: Segment) => RuleContext): void {
  const handed: string[] = [];
  for (let s = 0; s < stages.length; s += 1) {
    for (const seg of stages[s] as Segment[]) {
      if (s > 0 && handed.length > 0 && seg.verb === 'xargs') {
        const command = xargsCommand(seg);
        if (command.length === 0) continue;
        const synthetic = peelCommand({
          words: [...command, ...handed.map(plainWord)],
          redirects: [],
          background: false,
        });
        accessFindings(contextFor(synthetic), EMPTY_ENV);
      }
    }
    for (const seg of stages[s] as Segment[]) handed.push(...handedPaths(seg).slice(0, 16));
  }
}

function pipelineRule(
  pipeline: ShellPipeline,
  segments: readonly Segment[],
  state: FlowEnv,
  contextFor: (seg: Segment) => RuleContext,
  subLists: SubLists,
): void {
  const stages = pipeline.map((stage) => stage.map((i) => segments[i] as Segment));
  if (stages.some((stage) => stage.some((seg) => seg.verb === 'xargs'))) xargsPaths(stages, contextFor);
  let level: SecretLevel;
  let network = false;
  let shell = false;
  let listsProcesses = false;
  let filtered = false;
  const needsSecrecy = stages.some((stage, s) => s > 0 && stage.some((seg) => uploadOf(seg)?.stdin === true));
  for (let s = 0; s < stages.length; s += 1) {
    const stage = stages[s] as Segment[];
    for (const seg of stage) {
      if (s > 0 && level !== undefined && uploadOf(seg)?.stdin === true) exfilFinding(contextFor(seg), level);
      if (s > 0 && listsProcesses && !filtered && xargsKills(seg)) contextFor(seg).danger(DANGEROUS.killList);
    }
    for (const seg of stage) {
      if (needsSecrecy) level = higher(level, outputSecrecy(seg, state, subLists));
      if (isNetworkStage(seg)) network = true;
      if (isShellStage(seg)) shell = true;
      if (seg.verb === 'ps' || (seg.verb === 'ls' && seg.argl.includes('/proc'))) listsProcesses = true;
      if (
        PROCESS_FILTERS.has(seg.verb) ||
        awkFilters(seg) ||
        (seg.verb === 'sed' && seg.argl.some((a) => a.includes('/')))
      )
        filtered = true;
    }
  }
  if (network && shell) contextFor(stages[0]?.[0] as Segment).danger(DANGEROUS.reverseShell);
}

function mentionsGatewayTables(seg: Segment): boolean {
  return (
    seg.argv.some(writesGatewayTables) ||
    seg.redirects.some((r) => r.body !== undefined && writesGatewayTables(r.body))
  );
}

/**
 * SQL on the gateway's approval/pairing tables anywhere in a list that also runs a database
 * client: piped in, staged in a file (`echo … > x.sql; sqlite3 "$DB" .read x.sql`), or passed.
 */
function gatewaySqlRule(segments: readonly Segment[], contextFor: (seg: Segment) => RuleContext): void {
  const client = segments.find((seg) => DATABASE_CLIENTS.has(seg.verb) || FILE_DB_CLIENTS.has(seg.verb));
  if (client !== undefined && segments.some(mentionsGatewayTables))
    contextFor(client).hardline(HARDLINE.hermesDb);
}

/** The list-level hook called once per command list (see detect-engine.ts). */
export function listRules(
  segments: readonly Segment[],
  pipelines: readonly ShellPipeline[],
  contextFor: (seg: Segment) => RuleContext,
): void {
  if (segments.length === 0) return;
  const state = new ListState();
  let subLists: SubLists | undefined;
  const subListsOf = (ctx: RuleContext): SubLists => {
    subLists ??= (word) => word.subs.flatMap((sub) => ctx.segmentsOf(sub.list));
    return subLists;
  };
  for (const seg of segments) {
    const interesting =
      !state.trivial ||
      state.secretFiles.size > 0 ||
      state.secretVars.size > 0 ||
      state.downloads.size > 0 ||
      seg.verb === '' ||
      seg.verb === 'cd' ||
      seg.verb === 'pushd' ||
      seg.verb === 'export' ||
      seg.verb === 'declare' ||
      seg.verb === 'local' ||
      seg.verb === 'readonly' ||
      seg.redirects.length > 0 ||
      uploadOf(seg) !== undefined ||
      recordsDownload(seg);
    if (segments.length === 1 && !interesting) return;
    if (!interesting) continue;
    const ctx = contextFor(seg);
    const sub = subListsOf(ctx);
    if (!state.trivial) accessFindings(ctx, state);
    if (uploadOf(seg) !== undefined) exfilRule(ctx, state);
    if (state.downloads.size > 0 && runsDownload(seg, state.downloads)) ctx.danger(DANGEROUS.downloadRun);
    if (seg.verb === 'cd' || seg.verb === 'pushd') cdTarget(seg, state);
    else if (seg.verb === 'popd') state.cwd = undefined;
    bindings(seg, state, sub);
    recordDownloads(seg, state);
    recordStaged(seg, state, sub);
  }
  gatewaySqlRule(segments, contextFor);
  if (pipelines.length === 0) return;
  const sub = subListsOf(contextFor(segments[0] as Segment));
  for (const pipeline of pipelines) pipelineRule(pipeline, segments, state, contextFor, sub);
}

function recordsDownload(seg: Segment): boolean {
  return (
    seg.verb === 'curl' ||
    seg.verb === 'wget' ||
    seg.verb === 'aria2c' ||
    seg.verb === 'fetch' ||
    seg.verb === 'cp' ||
    seg.verb === 'tar' ||
    seg.verb === 'zip' ||
    seg.verb === 'base64'
  );
}
