import { type Collector, operandIndexes, type PathUse } from './detect-path-collector.js';
import type { Segment } from './shell-segment.js';

/** Archivers and compressors: which operand is the archive, which are members, where it extracts. */

interface Place {
  readonly index: number;
  /** Characters to cut from the word (`--file=` → 7). */
  readonly cut: number;
}

const TAR_MODES: Readonly<Record<string, string>> = {
  '--create': 'c',
  '--extract': 'x',
  '--get': 'x',
  '--list': 't',
  '--append': 'r',
  '--update': 'u',
  '--delete': 'D',
  '--diff': 'd',
  '--compare': 'd',
};
/** Short tar options that take the next word. */
const TAR_VALUE_LETTERS = 'fCTXgKNVbLFHI';

/** tar: the archive is written when creating and read otherwise; `-C DIR` is written when extracting. */
export function tar(c: Collector, seg: Segment): void {
  const { argv, argl } = seg;
  let mode = '';
  let archive: Place | undefined;
  let directory: Place | undefined;
  let toStdout = false;
  const members: number[] = [];
  const pending: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const lower = argl[i] as string;
    const letter = pending.shift();
    if (letter !== undefined) {
      if (letter === 'f') archive = { index: i, cut: 0 };
      else if (letter === 'C') directory = { index: i, cut: 0 };
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = lower.indexOf('=');
      const name = eq < 0 ? lower : lower.slice(0, eq);
      if (name === '--file' || name === '--directory') {
        const place = eq < 0 ? { index: i + 1, cut: 0 } : { index: i, cut: eq + 1 };
        if (name === '--file') archive = place;
        else directory = place;
        if (eq < 0) i += 1;
      } else if (name === '--to-stdout') toStdout = true;
      else mode += TAR_MODES[name] ?? '';
      continue;
    }
    const bundled = i === 0 && /^[a-zA-Z]+$/.test(arg);
    if ((arg.startsWith('-') && arg.length > 1) || bundled) {
      for (const l of arg.startsWith('-') ? arg.slice(1) : arg) {
        if ('cxtruAd'.includes(l)) mode += l;
        if (l === 'O') toStdout = true;
        if (TAR_VALUE_LETTERS.includes(l)) pending.push(l);
      }
      continue;
    }
    members.push(i);
  }
  const creates = /[cruAD]/.test(mode);
  const extracts = mode.includes('x') && !toStdout;
  if (archive !== undefined) c.add(archive.index, creates ? 'write' : 'read', false, false, archive.cut);
  if (directory !== undefined)
    c.add(directory.index, extracts ? 'write' : 'read', creates, false, directory.cut);
  if (/[cruA]/.test(mode)) for (const i of members) c.add(i, 'read', true);
  if (extracts && directory === undefined) c.writesCwd = true;
}

export function zip(c: Collector, seg: Segment): void {
  const files = operandIndexes(seg.argv, new Set(['-x', '-i', '-b', '-n', '-P', '--password']));
  const out = files.shift();
  if (out !== undefined) c.add(out, 'write');
  for (const i of files) c.add(i, 'read', true);
}

export function unzip(c: Collector, seg: Segment): void {
  const { argv } = seg;
  const printOnly = argv.some((a) => /^-[^-]*[plvtZ]/.test(a));
  const d = argv.indexOf('-d');
  const files = operandIndexes(argv, new Set(['-d', '-x', '-P']));
  const archive = files[0];
  if (archive !== undefined) c.add(archive, 'read');
  if (printOnly) return;
  if (d >= 0) c.add(d + 1, 'write');
  else c.writesCwd = true;
}

export function sevenZip(c: Collector, seg: Segment): void {
  const { argl } = seg;
  const files = operandIndexes(seg.argv);
  const command = files.shift();
  const sub = command === undefined ? '' : (argl[command] as string);
  const archive = files.shift();
  if (sub === 'a' || sub === 'u' || sub === 'd' || sub === 'rn') {
    if (archive !== undefined) c.add(archive, 'write');
    for (const i of files) c.add(i, 'read', true);
  } else if (sub === 'x' || sub === 'e') {
    if (archive !== undefined) c.add(archive, 'read');
    const out = argl.findIndex((a) => a.startsWith('-o'));
    if (out >= 0) c.add(out, 'write', false, false, 2);
    else c.writesCwd = true;
  } else if (archive !== undefined) {
    c.add(archive, 'read');
  }
}

export function compressor(c: Collector, seg: Segment): void {
  const { argv } = seg;
  const toStdout = argv.some(
    (a) =>
      a === '--stdout' ||
      a === '--to-stdout' ||
      a === '--list' ||
      a === '--test' ||
      (/^-[a-zA-Z0-9]+$/.test(a) && /[cltd]/.test(a.slice(1)) && /[clt]/.test(a.slice(1))),
  );
  const use: PathUse = toStdout ? 'read' : 'write';
  for (const i of operandIndexes(argv, new Set(['-S', '--suffix', '-o', '--output']))) c.add(i, use);
  const out = argv.findIndex((a) => a === '-o' || a === '--output');
  if (out >= 0) c.add(out + 1, 'write');
}
