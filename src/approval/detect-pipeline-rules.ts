import { clientLanguage, clientText } from './detect-client-escape-rules.js';
import type { RuleContext } from './detect-context.js';
import { redisHazards, redisWords } from './detect-gateway-rules.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import { DANGEROUS } from './detect-keys.js';
import { literalOutput } from './detect-literal-output.js';
import { STDIN_FILES, shellInvocation } from './detect-shell-call.js';
import { DATABASE_CLIENTS } from './detect-sql.js';
import { decoderKey, REMOTE_FETCHERS } from './detect-substituted-sources.js';
import { namesGateway } from './detect-system-rules.js';
import { operands, type Segment } from './shell-segment.js';
import type { ShellPipeline } from './shell-types.js';

export { decodeEscapes } from './detect-literal-output.js';

/**
 * Rules about what flows through a pipeline: remote or decoded content into a shell, literal
 * text into a shell, interpreter, database client or redis-cli, gateway pids into `kill`.
 * One forward sweep per pipeline (linear in its length).
 */

interface Upstream {
  remote: boolean;
  /** Obfuscation keys of decoding stages seen so far. */
  readonly decoders: Set<string>;
  gatewayPids: boolean;
}

function updateUpstream(up: Upstream, seg: Segment): void {
  const verb = seg.verb;
  if (REMOTE_FETCHERS.has(verb)) up.remote = true;
  const decoder = decoderKey(seg);
  if (decoder !== undefined) up.decoders.add(decoder);
  if ((verb === 'pgrep' || verb === 'pidof') && operands(seg.argl).some((arg) => namesGateway(arg))) {
    up.gatewayPids = true;
  }
}

/** What a pipeline sink does with the text on its stdin, when it runs it as code. */
export type StdinUse = 'shell' | 'code' | 'client' | 'parallel' | 'cron' | 'remote' | undefined;

export function stdinUse(sink: Segment): StdinUse {
  const { family, verb, argv, argl } = sink;
  if (family === 'shell') return shellInvocation(argv).readsStdin ? 'shell' : undefined;
  if ((verb === 'source' || verb === '.') && STDIN_FILES.test(argl[0] ?? '')) return 'shell';
  const spec = INTERPRETERS.get(family);
  if (spec !== undefined) {
    const program = parseInterpreter(argv, spec);
    const fromStdin = program.script === undefined || STDIN_FILES.test(program.script);
    return program.code.length === 0 && program.module === undefined && fromStdin ? 'code' : undefined;
  }
  if (verb === 'at' || verb === 'batch')
    return argv.some((arg) => /^-[a-zA-Z]*[flcrd]/.test(arg)) ? undefined : 'shell';
  if (verb === 'crontab') return operands(argv).every((arg) => arg === '-') ? 'cron' : undefined;
  if (verb === 'parallel') return argv.every((arg) => arg.startsWith('-')) ? 'parallel' : undefined;
  if (verb === 'ssh') return 'remote';
  if (clientLanguage(verb, argv) !== undefined) return 'client';
  return undefined;
}

function sinkChecks(ctx: RuleContext, up: Upstream, literal: readonly string[] | undefined): void {
  const sink = ctx.seg;
  const use = stdinUse(sink);
  const shellSink =
    sink.family === 'shell' ||
    ((sink.verb === 'source' || sink.verb === '.') && sink.argl[0] === '/dev/stdin');
  const spec = INTERPRETERS.get(sink.family);
  const interpreterSink = use === 'code';
  if (shellSink || interpreterSink || use === 'shell' || use === 'parallel' || use === 'cron') {
    if (up.remote) ctx.danger(DANGEROUS.remotePipe);
    for (const key of up.decoders) ctx.danger(key);
  }
  const language = clientLanguage(sink.verb, sink.argv);
  const runsCode =
    use === 'shell' ||
    use === 'code' ||
    use === 'parallel' ||
    use === 'cron' ||
    (use === 'client' && language === 'ex');
  if (runsCode && literal === undefined && !up.remote && up.decoders.size === 0)
    ctx.danger(DANGEROUS.codeFromData);
  if (literal !== undefined) {
    for (const text of literal) {
      if (use === 'shell' || use === 'remote') ctx.scanShell(text);
      else if (use === 'parallel') for (const line of text.split('\n')) ctx.scanShell(line, true);
      else if (use === 'cron')
        for (const line of text.split('\n'))
          ctx.scanShell(line.replace(/^\s*(?:@\w+|(?:\S+\s+){5})/, ''), true);
      else if (interpreterSink && spec !== undefined) ctx.scanCode(spec.language, text);
      if (language !== undefined) clientText(ctx, language, text);
      if (DATABASE_CLIENTS.has(sink.verb)) ctx.scanSql(text);
      if (sink.family === 'redis-cli') redisHazards(ctx, redisWords(text));
    }
  }
  if (up.remote && (sink.verb === 'iex' || sink.verb === 'invoke-expression'))
    ctx.danger(DANGEROUS.psRemotePipe);
  if (
    up.gatewayPids &&
    (sink.verb === 'kill' || (sink.verb === 'xargs' && operands(sink.argl).includes('kill')))
  ) {
    ctx.danger(DANGEROUS.selfKill);
  }
}

export function pipelineRules(
  pipeline: ShellPipeline,
  segments: readonly Segment[],
  contextFor: (seg: Segment) => RuleContext,
): void {
  const up: Upstream = { remote: false, decoders: new Set(), gatewayPids: false };
  let literal: string[] | undefined;
  for (let s = 0; s < pipeline.length; s += 1) {
    const stage = pipeline[s] as readonly number[];
    const first = stage[0];
    if (first === undefined) {
      literal = undefined;
      continue;
    }
    if (s > 0) sinkChecks(contextFor(segments[first] as Segment), up, literal);
    for (const index of stage) updateUpstream(up, segments[index] as Segment);
    literal = stage.length === 1 ? literalOutput(segments[first] as Segment) : undefined;
  }
}
