import type { RuleContext } from './detect-context.js';
import { decoderKey, heredocBodies, REMOTE_FETCHERS, shellInvocation } from './detect-exec-rules.js';
import { redisHazards, redisWords } from './detect-gateway-rules.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import { DANGEROUS } from './detect-keys.js';
import { DATABASE_CLIENTS } from './detect-sql.js';
import { namesGateway } from './detect-system-rules.js';
import { operands, type Segment } from './shell-segment.js';
import type { ShellPipeline } from './shell-types.js';
import { decodeAnsiC } from './shell-word-builder.js';

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

/** Decodes echo -e / printf style backslash escapes (`\\x72` → `r`). */
export function decodeEscapes(text: string): string {
  return text.includes('\\') ? decodeAnsiC(`${text.replaceAll("'", "\\'")}'`, 0).text : text;
}

/** What a stage writes to stdout when that is visible in the command itself. */
function literalOutput(seg: Segment): string[] | undefined {
  if (seg.verb === 'echo') {
    let i = 0;
    while (i < seg.argv.length && /^-[neE]+$/.test(seg.argv[i] as string)) i += 1;
    const text = seg.argv.slice(i).join(' ');
    const decoded = decodeEscapes(text);
    return decoded === text ? [text] : [text, decoded];
  }
  if (seg.verb === 'printf') {
    const [format, ...rest] = seg.argv;
    if (format === undefined) return undefined;
    return [[decodeEscapes(format), ...rest].join(' ')];
  }
  if (seg.verb === 'cat' && operands(seg.argv).length === 0) {
    const bodies = heredocBodies(seg);
    return bodies.length > 0 ? bodies : undefined;
  }
  return undefined;
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

function sinkChecks(ctx: RuleContext, up: Upstream, literal: readonly string[] | undefined): void {
  const sink = ctx.seg;
  const shellSink =
    sink.family === 'shell' ||
    ((sink.verb === 'source' || sink.verb === '.') && sink.argl[0] === '/dev/stdin');
  const spec = INTERPRETERS.get(sink.family);
  let interpreterSink = false;
  if (spec !== undefined) {
    const program = parseInterpreter(sink.argv, spec);
    interpreterSink =
      program.code.length === 0 && program.module === undefined && (program.script ?? '-') === '-';
  }
  if (shellSink || interpreterSink) {
    if (up.remote) ctx.danger(DANGEROUS.remotePipe);
    for (const key of up.decoders) ctx.danger(key);
  }
  if (literal !== undefined) {
    const readsProgram = shellSink && (sink.family !== 'shell' || shellInvocation(sink.argv).readsStdin);
    for (const text of literal) {
      if (readsProgram) ctx.scanShell(text);
      else if (interpreterSink && spec !== undefined) ctx.scanCode(spec.language, text);
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
