import type { Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/** What a command does with one path it names, and the collector the per-program parsers fill. */

export type PathUse = 'read' | 'write' | 'attr' | 'link' | 'db' | 'unknown';

export interface UsedPath {
  /** Lower-cased word text (folded spelling), or a value cut out of it (`of=X`, `@X`). */
  readonly path: string;
  readonly word: ShellWord | undefined;
  readonly use: PathUse;
  /** The command reads the whole tree below a directory (`cp -r`, `tar c`, `grep -r`, `rg`). */
  readonly recursive: boolean;
  /** One of Hermes' own sensitive-write keys already covers this use (redirect, tee, cp, mv, sed -i…). */
  readonly keyed: boolean;
}

/** What the command does when it names no path at all: writes into its working directory. */
export interface SegmentUses {
  readonly paths: UsedPath[];
  /** The program is not known to leave its working directory alone (`git init`, `tar x`, `curl -O`). */
  readonly writesCwd: boolean;
  /** The program is not known at all (its effect on files cannot be told). */
  readonly unknown: boolean;
}

export class Collector {
  readonly paths: UsedPath[] = [];
  writesCwd = false;
  unknown = false;

  constructor(private readonly seg: Segment) {}

  add(index: number, use: PathUse, recursive = false, keyed = false, cut = 0): void {
    const text = this.seg.argl[index];
    if (text === undefined) return;
    const path = cut > 0 ? text.slice(cut) : text;
    if (path === '' || path === '-') return;
    this.paths.push({ path, word: this.seg.args[index], use, recursive, keyed });
  }

  addText(path: string, word: ShellWord | undefined, use: PathUse, keyed = false): void {
    if (path === '' || path === '-') return;
    this.paths.push({ path, word, use, recursive: false, keyed });
  }
}

/** Indexes of words that are not options (everything after `--` included). */
export function operandIndexes(argv: readonly string[], valueOptions: ReadonlySet<string> = EMPTY): number[] {
  const out: number[] = [];
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('-') && arg.length > 1) {
      if (!arg.includes('=') && valueOptions.has(arg)) i += 1;
    } else out.push(i);
  }
  return out;
}
const EMPTY: ReadonlySet<string> = new Set();

/** Every word, option values included (`--out=X` gives X): the fail-closed reading of an unknown program. */
export function everyWord(c: Collector, seg: Segment, use: PathUse): void {
  seg.argl.forEach((arg, i) => {
    if (arg.startsWith('-')) {
      const eq = arg.indexOf('=');
      if (eq > 0) c.add(i, use, false, false, eq + 1);
    } else {
      c.add(i, use);
    }
  });
}

export function recursiveFlag(argv: readonly string[], letters: string, long: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg.charCodeAt(0) !== 0x2d) continue;
    if (arg === '--') return false;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (long.includes((eq < 0 ? arg : arg.slice(0, eq)).toLowerCase())) return true;
      continue;
    }
    for (let k = 1; k < arg.length; k += 1) if (letters.includes(arg[k] as string)) return true;
  }
  return false;
}
