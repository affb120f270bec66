import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { TOOLS } from './detect-subcommand-table.js';
import { resolveLongOption, type Segment } from './shell-segment.js';
import { staticWord } from './shell-word-builder.js';

/**
 * Global options that come before a tool's subcommand (`git -C dir push`, `pip --proxy X
 * uninstall`, `kubectl --context x -n ns delete`, `docker -H host rm`). The family rules look
 * for the subcommand as the first operand; the detector also hands them the command with these
 * options taken out, so a value option they do not know cannot hide the subcommand.
 */

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
