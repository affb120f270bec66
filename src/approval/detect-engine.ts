import type { DetectResult, Finding } from './approval-types.js';
import type { CodeLanguage, Rule, RuleContext, VerbRules } from './detect-context.js';
import { destroyRules } from './detect-destroy-rules.js';
import { diskRules } from './detect-disk-rules.js';
import { execRules } from './detect-exec-rules.js';
import { exfilRules } from './detect-exfil-rules.js';
import { addsExecute, chmodMode, fileRules, redirectRule } from './detect-file-rules.js';
import { gatewayRules } from './detect-gateway-rules.js';
import { gitRules } from './detect-git-rules.js';
import { hardlineRules } from './detect-hardline-rules.js';
import { infraRules } from './detect-infra-rules.js';
import { scanInlineCode } from './detect-inline-code.js';
import { interpreterRules } from './detect-interpreter-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { listRules } from './detect-list-rules.js';
import { networkRules } from './detect-network-rules.js';
import { decodeEscapes, pipelineRules } from './detect-pipeline-rules.js';
import { processRules } from './detect-process-rules.js';
import { sqlHazards, sqlRules } from './detect-sql.js';
import { daemonEnvRule, sudoFlagRule, systemRules } from './detect-system-rules.js';
import { textRules } from './detect-text-rules.js';
import { windowsRules, windowsVerbRule } from './detect-windows-rules.js';
import { type NormalizeOptions, normalizeCommand, shellViewOfCommand } from './normalize-command.js';
import { parseShell } from './shell-scan.js';
import { isAssignment, peelCommand, type Segment } from './shell-segment.js';
import type { ShellCommand, ShellList, ShellWord } from './shell-types.js';

/** Payload nesting (`bash -c "bash -c '…'"`, `eval`, `find -exec`) followed before giving up. */
export const MAX_PAYLOAD_DEPTH = 8;
const MAX_CONSTANTS = 64;
/**
 * Simple commands analysed per call at most. Each costs a few microseconds, so this bounds the
 * worst case (thousands of `a;a;a;…`) to a few milliseconds; real commands stay far below it.
 */
export const MAX_SEGMENTS = 1_000;
const MAX_CONSTANT_LENGTH = 256;

function indexRules(tables: readonly (readonly VerbRules[])[]): ReadonlyMap<string, readonly Rule[]> {
  const index = new Map<string, Rule[]>();
  for (const table of tables) {
    for (const entry of table) {
      for (const verb of entry.verbs) {
        const rules = index.get(verb);
        if (rules === undefined) index.set(verb, [entry.run]);
        else rules.push(entry.run);
      }
    }
  }
  return index;
}

/** Rules by verb family; built once from constant tables and never changed. */
const RULES_BY_FAMILY = indexRules([
  hardlineRules,
  fileRules,
  systemRules,
  gatewayRules,
  gitRules,
  windowsRules,
  sqlRules,
  execRules,
  interpreterRules,
  exfilRules,
  destroyRules,
  diskRules,
  processRules,
  infraRules,
  networkRules,
]);

const PRINTERS = new Set([
  'echo',
  'printf',
  'tr',
  'rev',
  'base64',
  'base32',
  'xxd',
  'sed',
  'awk',
  'cut',
  'od',
  'cat',
]);

/** A word built by the detector itself (a resolved constant or command name). */
function plainWord(text: string): ShellWord {
  return {
    text,
    quoted: false,
    dynamic: false,
    mixedName: false,
    expansionName: undefined,
    expansionUnquoted: false,
    subs: [],
  };
}

/** What a command word made only of `$(echo X)` / `$(which X)` stands for, and whether it printed it. */
function resolvedCommandWord(
  ctx: RuleContext,
  word: ShellWord,
): { name: string; printed: boolean } | undefined {
  const sub = word.subs[0];
  if (
    word.subs.length !== 1 ||
    sub === undefined ||
    !(word.text.startsWith('$(') || word.text.startsWith('`'))
  ) {
    return undefined;
  }
  const segments = ctx.segmentsOf(sub.list);
  const only = segments[0];
  if (segments.length !== 1 || only === undefined) return undefined;
  const args = only.argv.filter((arg) => !arg.startsWith('-'));
  if (only.verb === 'echo' || only.verb === 'printf') {
    return { name: decodeEscapes(args.join('')).trim(), printed: true };
  }
  if (only.verb === 'which' || only.verb === 'type' || only.verb === 'command') {
    return { name: args[args.length - 1] ?? '', printed: false };
  }
  return undefined;
}

/** A command name assembled from pieces (`r${x}m`, `$a$b`, `$(printf '\x72m')`). */
function obfuscatedNameRule(ctx: RuleContext): void {
  const word = ctx.seg.verbWord;
  if (word === undefined) return;
  if (word.mixedName) ctx.danger(DANGEROUS.obfuscatedName);
  if (word.subs.length === 0) return;
  for (const sub of word.subs) {
    if (ctx.segmentsOf(sub.list).some((seg) => PRINTERS.has(seg.verb))) ctx.danger(DANGEROUS.obfuscatedName);
  }
  const resolved = resolvedCommandWord(ctx, word);
  if (resolved !== undefined && resolved.name !== '')
    ctx.scanWords([plainWord(resolved.name), ...ctx.seg.args]);
}

const GENERIC_RULES: readonly Rule[] = [
  redirectRule,
  sudoFlagRule,
  daemonEnvRule,
  windowsVerbRule,
  obfuscatedNameRule,
];

class SegmentContext implements RuleContext {
  constructor(
    readonly seg: Segment,
    readonly listHasDisown: boolean,
    private readonly run: DetectionRun,
    private readonly depth: number,
  ) {}

  danger(key: string): void {
    this.run.add(key, 'dangerous');
  }

  hardline(key: string): void {
    this.run.add(key, 'hardline');
  }

  scanShell(text: string, lenient = false): void {
    this.run.scanCommand(text, this.depth + 1, !lenient);
  }

  scanWords(words: readonly ShellWord[]): void {
    this.run.analyzeWords(words, this.depth + 1);
  }

  scanCode(language: CodeLanguage, code: string): void {
    this.run.scanCode(this.seg, language, code, this.depth + 1);
  }

  scanSql(text: string): void {
    for (const key of sqlHazards(text)) this.danger(key);
  }

  segmentsOf(list: ShellList): readonly Segment[] {
    return this.run.segmentsFor(list);
  }
}

/** The state of one `detect()` call: findings so far, the work budget, peeled segments. */
export class DetectionRun {
  private readonly findings = new Map<string, Finding>();
  private readonly segmentCache = new WeakMap<ShellList, Segment[]>();
  private budget: number;
  private segmentCount = 0;

  constructor(
    private readonly options: NormalizeOptions,
    budget: number,
    private readonly segmentSink?: string[],
  ) {
    this.budget = budget;
  }

  add(key: string, tier: 'hardline' | 'dangerous'): void {
    const existing = this.findings.get(key);
    if (existing === undefined || (existing.tier === 'dangerous' && tier === 'hardline')) {
      this.findings.set(key, { key, description: key, tier });
    }
  }

  result(): DetectResult {
    const findings = [...this.findings.values()];
    const hardline = findings.filter((finding) => finding.tier === 'hardline');
    const dangerous = findings.filter((finding) => finding.tier !== 'hardline');
    const verdict = hardline.length > 0 ? 'hardline' : dangerous.length > 0 ? 'dangerous' : 'safe';
    return { verdict, findings: [...hardline, ...dangerous] };
  }

  /**
   * Scans command text. The normalised view and the shell's own view are both scanned when
   * they differ; quoting mistakes count only in the shell's view, and only when `strict`.
   */
  scanCommand(command: string, depth: number, strict: boolean): void {
    const normalized = normalizeCommand(command, this.options);
    const shell = shellViewOfCommand(command, this.options);
    if (normalized === shell) {
      this.scanScript(normalized, depth, strict);
    } else {
      this.scanScript(normalized, depth, false);
      this.scanScript(shell, depth, strict);
    }
  }

  private scanScript(text: string, depth: number, strict: boolean): void {
    if (!this.spend(text.length, depth)) return;
    const parsed = parseShell(text);
    if (parsed.overflow) this.add(HARDLINE.parserLimit, 'hardline');
    if (parsed.malformed && strict) this.add(HARDLINE.malformed, 'hardline');
    textRules(text, {
      hardline: (key) => this.add(key, 'hardline'),
      danger: (key) => this.add(key, 'dangerous'),
    });
    this.analyzeList(parsed.list, depth);
  }

  /** Charges work against the budget; false (and a parser-limit finding) when it is spent. */
  private spend(length: number, depth: number): boolean {
    this.budget -= length;
    if (depth > MAX_PAYLOAD_DEPTH || this.budget < 0) {
      this.add(HARDLINE.parserLimit, 'hardline');
      return false;
    }
    return true;
  }

  scanCode(seg: Segment, language: CodeLanguage, code: string, depth: number): void {
    if (!this.spend(code.length, depth)) return;
    scanInlineCode(new SegmentContext(seg, false, this, depth), language, code);
  }

  analyzeWords(words: readonly ShellWord[], depth: number): void {
    if (!this.spend(words.length, depth)) return;
    const seg = peelCommand({ words, redirects: [], background: false });
    this.analyzeSegment(seg, depth, false, false);
  }

  /** Peeled segments of a list, with simple constants (`d=/; rm -rf $d`) substituted. */
  segmentsFor(list: ShellList): Segment[] {
    const cached = this.segmentCache.get(list);
    if (cached !== undefined) return cached;
    const constants = new Map<string, string>();
    const segments = list.commands.map((command) => {
      const seg = peelCommand(substituteConstants(command, constants));
      recordConstants(seg, constants);
      return seg;
    });
    this.segmentCache.set(list, segments);
    return segments;
  }

  private analyzeList(list: ShellList, depth: number): void {
    this.segmentCount += list.commands.length;
    if (this.segmentCount > MAX_SEGMENTS) {
      this.add(HARDLINE.parserLimit, 'hardline');
      return;
    }
    const segments = this.segmentsFor(list);
    const listHasDisown = segments.some((seg) => seg.verb === 'disown');
    const executable = new Set<string>();
    for (const seg of segments) {
      if (executable.size > 0 && runsFileFrom(seg, executable)) this.add(DANGEROUS.chmodRun, 'dangerous');
      this.analyzeSegment(seg, depth, listHasDisown, true);
      if (seg.verb === 'chmod') {
        const { mode, files } = chmodMode(seg.argv);
        if (mode !== undefined && addsExecute(mode))
          for (const file of files) executable.add(stripDotSlash(file));
      }
    }
    for (const pipeline of list.pipelines) {
      pipelineRules(pipeline, segments, (seg) => new SegmentContext(seg, listHasDisown, this, depth));
    }
    listRules(segments, list.pipelines, (seg) => new SegmentContext(seg, listHasDisown, this, depth));
  }

  private analyzeSegment(seg: Segment, depth: number, listHasDisown: boolean, traverse: boolean): void {
    if (this.segmentSink !== undefined) renderSegment(seg, this.segmentSink);
    const ctx = new SegmentContext(seg, listHasDisown, this, depth);
    for (const rule of GENERIC_RULES) rule(ctx);
    const rules = RULES_BY_FAMILY.get(seg.family);
    if (rules !== undefined) for (const rule of rules) rule(ctx);
    if (!traverse) return;
    for (const word of seg.command.words) {
      for (const sub of word.subs) this.analyzeList(sub.list, depth);
    }
    for (const redirect of seg.redirects) {
      for (const sub of redirect.target?.subs ?? []) this.analyzeList(sub.list, depth);
      for (const sub of redirect.bodySubs) this.analyzeList(sub.list, depth);
    }
  }
}

function stripDotSlash(path: string): string {
  let out = path;
  while (out.startsWith('./')) out = out.slice(2);
  return out;
}

/** `chmod +x f && ./f` or `… && bash f`. */
function runsFileFrom(seg: Segment, executable: ReadonlySet<string>): boolean {
  const verbPath = seg.verbWord?.text;
  if (verbPath !== undefined && executable.has(stripDotSlash(verbPath))) return true;
  const script = seg.family === 'shell' ? seg.argv.find((arg) => !arg.startsWith('-')) : undefined;
  return script !== undefined && executable.has(stripDotSlash(script));
}

function substituteConstants(command: ShellCommand, constants: ReadonlyMap<string, string>): ShellCommand {
  if (constants.size === 0) return command;
  let changed = false;
  const words: ShellWord[] = [];
  for (const word of command.words) {
    const value = word.expansionName === undefined ? undefined : constants.get(word.expansionName);
    if (value === undefined) {
      words.push(word);
      continue;
    }
    changed = true;
    if (word.expansionUnquoted) {
      for (const part of value.split(/[ \t\n]+/)) if (part !== '') words.push(plainWord(part));
    } else {
      words.push(plainWord(value));
    }
  }
  const redirects = command.redirects.map((redirect) => {
    const name = redirect.target?.expansionName;
    const value = name === undefined ? undefined : constants.get(name);
    if (value === undefined) return redirect;
    changed = true;
    return { ...redirect, target: plainWord(value) };
  });
  return changed ? { words, redirects, background: command.background } : command;
}

function recordConstants(seg: Segment, constants: Map<string, string>): void {
  const exported =
    seg.verb === 'export' || seg.verb === 'declare' || seg.verb === 'typeset' || seg.verb === 'local';
  if (seg.verb !== '' && !exported) return;
  const texts = seg.verb === '' ? seg.assignments : seg.argv.filter((arg) => isAssignment(arg));
  for (const text of texts) {
    const eq = text.indexOf('=');
    if (text[eq - 1] === '+') continue;
    const name = text.slice(0, eq);
    const value = text.slice(eq + 1);
    if (value.length > MAX_CONSTANT_LENGTH || (!constants.has(name) && constants.size >= MAX_CONSTANTS))
      continue;
    constants.set(name, value);
  }
}

/** The text of a segment for `commandSegments`; privilege wrappers get a segment of their own. */
function renderSegment(seg: Segment, sink: string[]): void {
  const body: string[] = [];
  if (seg.verbWord !== undefined) body.push(seg.verb, ...seg.argv.map(caseFold));
  for (const wrapper of seg.wrappers) {
    if (wrapper.name === 'sudo' || wrapper.name === 'doas' || wrapper.name === 'pkexec') {
      sink.push([wrapper.name, ...wrapper.options.map(caseFold), ...body].join(' '));
    }
  }
  if (body.length > 0) sink.push(body.join(' '));
}

function caseFold(word: string): string {
  return word.startsWith('-') ? word : word.toLowerCase();
}
