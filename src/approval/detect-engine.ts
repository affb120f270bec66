import type { DetectResult, Finding } from './approval-types.js';
import { type BoundList, bindList, type Positional } from './detect-bindings.js';
import { commandWordRule } from './detect-command-word.js';
import type { CodeLanguage, Rule, RuleContext, VerbRules } from './detect-context.js';
import { destroyRules } from './detect-destroy-rules.js';
import { diskRules } from './detect-disk-rules.js';
import { envRule } from './detect-env-rules.js';
import { escapeRules } from './detect-escape-rules.js';
import { execRules } from './detect-exec-rules.js';
import { exfilRules } from './detect-exfil-rules.js';
import { addsExecute, chmodMode, fileRules, redirectRule } from './detect-file-rules.js';
import { gatewayRules } from './detect-gateway-rules.js';
import { gitEscapeRules } from './detect-git-escape-rules.js';
import { gitRules } from './detect-git-rules.js';
import { hardlineRules } from './detect-hardline-rules.js';
import { infraRules } from './detect-infra-rules.js';
import { scanInlineCode } from './detect-inline-code.js';
import { interpreterRules } from './detect-interpreter-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { listRules } from './detect-list-rules.js';
import { networkRules } from './detect-network-rules.js';
import { pipelineRules } from './detect-pipeline-rules.js';
import { processRules } from './detect-process-rules.js';
import { runnerGenericRules, runnerRules } from './detect-runner-rules.js';
import { sqlHazards, sqlRules } from './detect-sql.js';
import { canonicalSegments } from './detect-subcommands.js';
import { daemonEnvRule, sudoFlagRule, systemRules } from './detect-system-rules.js';
import { textRules } from './detect-text-rules.js';
import { unresolvedGenericRules, unresolvedRules } from './detect-unresolved-rules.js';
import { windowsRules, windowsVerbRule } from './detect-windows-rules.js';
import { type NormalizeOptions, normalizeCommand, shellViewOfCommand } from './normalize-command.js';
import { parseShell } from './shell-scan.js';
import { peelCommand, type Segment, SHELL_NAMES } from './shell-segment.js';
import type { ShellList, ShellWord } from './shell-types.js';

/** Payload nesting (`bash -c "bash -c '…'"`, `eval`, `find -exec`) followed before giving up. */
export const MAX_PAYLOAD_DEPTH = 8;
/**
 * Simple commands analysed per call at most. Each costs a few microseconds, so this bounds the
 * worst case (thousands of `a;a;a;…`) to a few milliseconds; real commands stay far below it.
 */
export const MAX_SEGMENTS = 1_000;

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
  unresolvedRules,
  runnerRules,
  escapeRules,
  gitEscapeRules,
]);

/** Names a command-position glob (`/???/r[m]`) is tried against: every program with rules. */
const GLOB_PROGRAMS: readonly string[] = [...new Set([...RULES_BY_FAMILY.keys(), ...SHELL_NAMES])];

const GENERIC_RULES: readonly Rule[] = [
  redirectRule,
  sudoFlagRule,
  daemonEnvRule,
  windowsVerbRule,
  commandWordRule(GLOB_PROGRAMS),
  ...unresolvedGenericRules,
  ...runnerGenericRules,
  envRule,
];

class SegmentContext implements RuleContext {
  constructor(
    readonly seg: Segment,
    readonly listHasDisown: boolean,
    private readonly run: DetectionRun,
    private readonly depth: number,
    readonly positional: Positional,
    readonly stdinPiped = false,
  ) {}

  danger(key: string): void {
    this.run.add(key, 'dangerous');
  }

  hardline(key: string): void {
    this.run.add(key, 'hardline');
  }

  scanShell(text: string, lenient = false, positional: Positional = null): void {
    this.run.scanCommand(text, this.depth + 1, !lenient, positional);
  }

  runPayload(word: ShellWord | undefined, positional: Positional = null): void {
    if (word === undefined) return;
    if (word.expanded) this.danger(DANGEROUS.codeFromData);
    this.scanShell(word.text, false, positional);
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
    return this.run.segmentsFor(list, this.positional);
  }
}

/** The state of one `detect()` call: findings so far, the work budget, peeled segments. */
export class DetectionRun {
  private readonly findings = new Map<string, Finding>();
  private readonly segmentCache = new WeakMap<ShellList, BoundList>();
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

  /** Text-level findings (textRules reports through these). */
  hardline(key: string): void {
    this.add(key, 'hardline');
  }

  danger(key: string): void {
    this.add(key, 'dangerous');
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
  scanCommand(command: string, depth: number, strict: boolean, positional: Positional = null): void {
    // Past the segment limit the verdict is already the parser-limit hardline: read no more.
    if (this.segmentCount > MAX_SEGMENTS) return;
    const normalized = normalizeCommand(command, this.options);
    const shell = shellViewOfCommand(command, this.options);
    if (normalized === shell) {
      this.scanScript(normalized, depth, strict, positional);
    } else {
      this.scanScript(normalized, depth, false, positional);
      this.scanScript(shell, depth, strict, positional);
    }
  }

  private scanScript(text: string, depth: number, strict: boolean, positional: Positional): void {
    if (!this.spend(text.length, depth)) return;
    const parsed = parseShell(text);
    if (parsed.overflow) this.add(HARDLINE.parserLimit, 'hardline');
    if (parsed.malformed && strict) this.add(HARDLINE.malformed, 'hardline');
    textRules(text, this);
    this.analyzeList(parsed.list, depth, positional);
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
    scanInlineCode(new SegmentContext(seg, false, this, depth, null), language, code);
  }

  analyzeWords(words: readonly ShellWord[], depth: number): void {
    if (this.segmentCount > MAX_SEGMENTS || !this.spend(words.length, depth)) return;
    this.segmentCount += 1;
    const seg = peelCommand({ words, redirects: [], background: false });
    this.analyzeSegment(seg, depth, false, false, null);
  }

  /**
   * Peeled segments of a list, with names resolved as the list binds them (`d=/; rm -rf $d`,
   * `set -- …; "$@"`), and what each command's place in the list revealed (see bindList).
   */
  segmentsFor(list: ShellList, positional: Positional = null): Segment[] {
    return this.bound(list, positional).segments;
  }

  private bound(list: ShellList, positional: Positional): BoundList {
    const cached = this.segmentCache.get(list);
    if (cached !== undefined) return cached;
    const bound = bindList(list, positional);
    this.segmentCache.set(list, bound);
    return bound;
  }

  private analyzeList(list: ShellList, depth: number, positional: Positional): void {
    this.segmentCount += list.commands.length;
    if (this.segmentCount > MAX_SEGMENTS) {
      this.add(HARDLINE.parserLimit, 'hardline');
      return;
    }
    const { segments, notes } = this.bound(list, positional);
    const listHasDisown = segments.some((seg) => seg.verb === 'disown');
    const piped = pipedCommands(list);
    const executable = new Set<string>();
    for (const [i, seg] of segments.entries()) {
      if (executable.size > 0 && runsFileFrom(seg, executable)) this.add(DANGEROUS.chmodRun, 'dangerous');
      for (const note of notes[i] ?? []) {
        this.add(note.key, 'dangerous');
        if (note.scan !== undefined) this.scanCommand(note.scan, depth + 1, false, null);
      }
      const segPositional = seg.command.inFunction === true ? null : positional;
      this.analyzeSegment(seg, depth, listHasDisown, true, segPositional, piped.has(i));
      if (seg.verb === 'chmod') {
        const { mode, files } = chmodMode(seg.argv);
        if (mode !== undefined && addsExecute(mode))
          for (const file of files) executable.add(stripDotSlash(file));
      }
    }
    for (const pipeline of list.pipelines) {
      pipelineRules(
        pipeline,
        segments,
        (seg) => new SegmentContext(seg, listHasDisown, this, depth, positional, true),
      );
    }
    listRules(
      segments,
      list.pipelines,
      (seg) => new SegmentContext(seg, listHasDisown, this, depth, positional),
    );
  }

  private analyzeSegment(
    seg: Segment,
    depth: number,
    listHasDisown: boolean,
    traverse: boolean,
    positional: Positional,
    stdinPiped = false,
  ): void {
    if (this.segmentSink !== undefined) renderSegment(seg, this.segmentSink);
    const ctx = new SegmentContext(seg, listHasDisown, this, depth, positional, stdinPiped);
    for (const rule of GENERIC_RULES) rule(ctx);
    const rules = RULES_BY_FAMILY.get(seg.family);
    if (rules !== undefined) for (const rule of rules) rule(ctx);
    // Global options before a subcommand (`pip --proxy X uninstall`, `kubectl -n ns delete`):
    // the family rules also see the command without them.
    for (const canonical of canonicalSegments(seg)) {
      const family = RULES_BY_FAMILY.get(canonical.family);
      const canonicalCtx = new SegmentContext(canonical, listHasDisown, this, depth, positional, stdinPiped);
      if (family !== undefined) for (const rule of family) rule(canonicalCtx);
    }
    if (seg.uncertain >= 0) {
      // A wrapper option we do not know may take the next word as its value: read both ways.
      this.add(DANGEROUS.wrapperOption, 'dangerous');
      this.analyzeWords(seg.command.words.slice(seg.uncertain + 1), depth + 1);
    }
    if (!traverse) return;
    for (const word of seg.command.words) {
      for (const sub of word.subs) this.analyzeList(sub.list, depth, positional);
    }
    for (const redirect of seg.redirects) {
      for (const sub of redirect.target?.subs ?? []) this.analyzeList(sub.list, depth, positional);
      for (const sub of redirect.bodySubs) this.analyzeList(sub.list, depth, positional);
    }
  }
}

/** Indexes of the commands that read a pipe (every stage but the first). */
function pipedCommands(list: ShellList): Set<number> {
  const out = new Set<number>();
  for (const pipeline of list.pipelines) {
    for (let s = 1; s < pipeline.length; s += 1) for (const index of pipeline[s] ?? []) out.add(index);
  }
  return out;
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
