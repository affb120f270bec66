import { peelCommand, type Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/** Small readers the list binder (detect-bindings.ts) uses: paths, values, builtin arguments. */

/** `./a/./b` → `a/b`, for comparing a path written with the path run. */
export function normalizePath(path: string): string {
  let out = path;
  while (out.startsWith('./')) out = out.slice(2);
  return out.replaceAll('/./', '/');
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A substituted value as a word: unquoted text with glob characters stays a glob. */
export function valueWord(text: string, quoted: boolean): ShellWord {
  if (quoted || !/[*?[]/.test(text)) return staticWord(text, quoted);
  const baseGlob = /[*?[]/.test(baseName(text));
  return { ...staticWord(text), dynamic: true, baseGlob, baseDynamic: baseGlob };
}

export function splitFields(text: string): string[] {
  return text.split(/[ \t\n]+/).filter((part) => part !== '');
}

export function replaceVerb(seg: Segment, program: string): Segment {
  const index = seg.verbWord === undefined ? -1 : seg.command.words.indexOf(seg.verbWord);
  if (index < 0) return seg;
  const words = [...seg.command.words];
  words[index] = staticWord(program);
  return peelCommand({ ...seg.command, words });
}

/** Source and destination operands of cp/mv/ln/install; undefined with `-t DIR` (names kept). */
export function copyOperands(argv: readonly string[]): string[] | undefined {
  const files: string[] = [];
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (options && arg === '--') options = false;
    else if (options && (arg === '-t' || arg.startsWith('--target-directory') || /^-[^-]*t/.test(arg)))
      return undefined;
    else if (options && /^-[^-]*[SmogZ]$/.test(arg)) i += 1;
    else if (options && arg.startsWith('-') && arg.length > 1) continue;
    else files.push(arg);
  }
  return files;
}

export function makefileOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-f' || arg === '--file' || arg === '--makefile') return argv[i + 1];
    if (arg.startsWith('--file=') || arg.startsWith('--makefile=')) return arg.slice(arg.indexOf('=') + 1);
    if (/^-f./.test(arg)) return arg.slice(2);
  }
  return undefined;
}

/** Names `read`, `mapfile`, `getopts`, `let` assign. */
export function boundNames(verb: string, argv: readonly string[]): string[] {
  if (verb === 'let')
    return argv.map((arg) => /^[A-Za-z_][A-Za-z0-9_]*/.exec(arg)?.[0] ?? '').filter((n) => n !== '');
  if (verb === 'getopts') return [argv[1] ?? '', 'OPTARG', 'OPTIND'];
  const valued = verb === 'read' ? 'adinNptu' : 'dnOsuCc';
  const names: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (/^-[a-zA-Z]+$/.test(arg)) {
      const last = arg[arg.length - 1] as string;
      if (valued.includes(last)) {
        if (last === 'a') names.push(argv[i + 1] ?? '');
        i += 1;
      }
      continue;
    }
    names.push(arg);
  }
  if (names.length === 0) names.push(verb === 'read' ? 'REPLY' : 'MAPFILE');
  return names;
}

export function decodeBackslashes(text: string): string {
  return text.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
}
