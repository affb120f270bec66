import type { Rule, RuleContext } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { decodeEscapes, literalOutput } from './detect-literal-output.js';
import type { ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * The command word itself: a name the detector can know before the command runs (`rm`,
 * `"$dir"/tool`, `$(which node)`), or one it cannot (`$c`, `${c,,}`, `/???/r[m]`, `$(cat x)`),
 * which is flagged. A glob that could name a program with rules is also judged as that program.
 */

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
/** Most programs a command-position glob is tried against (the cost stays bounded). */
const MAX_GLOB_CANDIDATES = 8;

/**
 * What a command word made only of `$(echo X)` / `$(which X)` stands for (as words: an unquoted
 * `$(echo rm -rf ~)` is the whole command), and whether it was printed.
 */
function resolvedCommandWord(
  ctx: RuleContext,
  word: ShellWord,
): { words: string[]; printed: boolean } | undefined {
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
  const printed = literalOutput(only);
  if (printed !== undefined) {
    const text = printed[printed.length - 1] ?? '';
    const words = word.quoted ? [text.trim()] : text.split(/\s+/).filter((part) => part !== '');
    // `$(printf '\x72m')`-style pieces glued without spaces also count as one name.
    return { words: words.length > 0 ? words : [decodeEscapes(only.argv.join('')).trim()], printed: true };
  }
  const args = only.argv.filter((arg) => !arg.startsWith('-'));
  if (only.verb === 'which' || only.verb === 'type' || only.verb === 'command') {
    return { words: [args[args.length - 1] ?? ''], printed: false };
  }
  return undefined;
}

/**
 * True when the program a command word names is known: no unquoted expansion (field splitting
 * could make another word the command) and nothing dynamic in its last path component.
 */
export function isStaticCommandWord(word: ShellWord): boolean {
  return !word.splittable && !word.baseDynamic;
}

function globRegex(glob: string): RegExp | undefined {
  let pattern = '^';
  const groups: string[] = [];
  for (let i = 0; i < glob.length && i < 64; i += 1) {
    const c = glob[i] as string;
    if ('?*+@!'.includes(c) && glob[i + 1] === '(') {
      // extglob: ?(p) *(p) +(p) @(p) as regex groups; !(p) as anything.
      groups.push(c);
      pattern += c === '!' ? '(?:.*|' : '(?:';
      i += 1;
    } else if (c === '|' && groups.length > 0) pattern += '|';
    else if (c === ')' && groups.length > 0) {
      const kind = groups.pop() as string;
      pattern += kind === '@' || kind === '!' ? ')' : `)${kind}`;
    } else if (c === '*') pattern += '.*';
    else if (c === '?') pattern += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) pattern += '\\[';
      else {
        pattern += `[${glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/[\\\]]/g, '\\$&')}]`;
        i = close;
      }
    } else pattern += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`${pattern}$`, 'i');
  } catch {
    return undefined;
  }
}

/** Builds the command-word rule; `programs` are the names a command-position glob is tried against. */
export function commandWordRule(programs: readonly string[]): Rule {
  return (ctx) => {
    const word = ctx.seg.verbWord;
    if (word === undefined) return;
    let flagged = false;
    if (word.mixedName) {
      ctx.danger(DANGEROUS.obfuscatedName);
      flagged = true;
    }
    for (const sub of word.subs) {
      if (ctx.segmentsOf(sub.list).some((seg) => PRINTERS.has(seg.verb))) {
        ctx.danger(DANGEROUS.obfuscatedName);
        flagged = true;
      }
    }
    if (word.subs.length > 0) {
      const resolved = resolvedCommandWord(ctx, word);
      if (resolved !== undefined && resolved.words[0] !== '') {
        ctx.scanWords([...resolved.words.map((text) => staticWord(text)), ...ctx.seg.args]);
        if (!resolved.printed) return;
      }
    }
    if (isStaticCommandWord(word)) return;
    if (!flagged) ctx.danger(DANGEROUS.unresolvedCommand);
    if (!word.baseGlob) return;
    const base = word.text.slice(word.text.lastIndexOf('/') + 1);
    const regex = globRegex(base);
    if (regex === undefined) return;
    let tried = 0;
    for (const program of programs) {
      if (!regex.test(program)) continue;
      ctx.scanWords([staticWord(program), ...ctx.seg.args]);
      tried += 1;
      if (tried >= MAX_GLOB_CANDIDATES) break;
    }
  };
}
