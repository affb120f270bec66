import { compressor, sevenZip, tar, unzip, zip } from './detect-archive-uses.js';
import { shellInvocation } from './detect-exec-rules.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import {
  Collector,
  everyWord,
  operandIndexes,
  type PathUse,
  recursiveFlag,
  type SegmentUses,
} from './detect-path-collector.js';
import {
  ALWAYS_RECURSIVE,
  ATTRIBUTES,
  COMPRESSORS,
  EDITORS,
  FILE_DB_CLIENTS,
  KEY_USERS,
  META,
  READERS,
  SKIPPED,
  WRITERS,
} from './detect-program-kinds.js';
import type { Segment } from './shell-segment.js';

export type { PathUse, SegmentUses, UsedPath } from './detect-path-collector.js';
export { FILE_DB_CLIENTS, leavesFilesAlone } from './detect-program-kinds.js';

/**
 * What a simple command does with the paths it names: reads them, writes (creates, overwrites,
 * moves, deletes) them, changes their attributes, links them, opens them as a database — or
 * something unknown. Known programs are parsed option by option; every other program is
 * `unknown`, which the rules treat as "may write" for the gateway's own home (fail closed).
 */

function copyLike(c: Collector, seg: Segment, sourceUse: PathUse, destUse: PathUse): void {
  const { argv, argl } = seg;
  const recursive = recursiveFlag(argv, 'rRa', ['--recursive', '--archive']);
  const files: number[] = [];
  let target: number | undefined;
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const lower = argl[i] as string;
    if (options && arg === '--') options = false;
    else if (options && lower.startsWith('--target-directory=')) {
      c.add(i, destUse, false, true, '--target-directory='.length);
      target = i;
    } else if (options && (lower === '-t' || lower === '--target-directory' || /^-[^-]*t$/.test(arg))) {
      c.add(i + 1, destUse, false, true);
      target = i + 1;
      i += 1;
    } else if (options && /^-[SmogZ]$/.test(arg)) i += 1;
    else if (options && arg.startsWith('-') && arg.length > 1) continue;
    else files.push(i);
  }
  const directoriesOnly =
    seg.verb === 'install' && /^-[^-]*d/.test(argv.find((a) => a.startsWith('-')) ?? '');
  if (directoriesOnly) {
    for (const i of files) c.add(i, 'write');
    return;
  }
  if (target === undefined) {
    const dest = files.pop();
    if (dest !== undefined) c.add(dest, destUse, false, true);
  }
  for (const i of files) c.add(i, sourceUse, recursive, sourceUse !== 'read');
}

function rsyncLike(c: Collector, seg: Segment, valueOptions: ReadonlySet<string>): void {
  const files = operandIndexes(seg.argv, valueOptions);
  const dest = files.pop();
  if (dest !== undefined && !isRemote(seg.argl[dest] as string)) c.add(dest, 'write');
  for (const i of files) if (!isRemote(seg.argl[i] as string)) c.add(i, 'read', true);
}

/** Lower-cased operands of scp/rsync/sftp, option values (`-i KEY`, `--exclude X`) left out. */
export function transferOperands(seg: Segment): string[] {
  const values = seg.verb === 'rsync' ? RSYNC_VALUES : SCP_VALUES;
  return operandIndexes(seg.argv, values).map((i) => seg.argl[i] as string);
}

/** `host:path`, `user@host:path`, `rsync://…`, `s3://…` — not a local path. */
export function isRemote(text: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text)) return !text.startsWith('file://');
  const colon = text.indexOf(':');
  if (colon <= 0) return false;
  const slash = text.indexOf('/');
  return slash < 0 || colon < slash;
}

const RSYNC_VALUES = new Set([
  '-e',
  '--rsh',
  '--exclude',
  '--include',
  '--exclude-from',
  '--include-from',
  '--files-from',
  '-f',
  '--filter',
  '--port',
  '--log-file',
  '--partial-dir',
  '--temp-dir',
  '-T',
  '--backup-dir',
  '--chmod',
  '--chown',
  '-B',
  '--block-size',
]);
const SCP_VALUES = new Set(['-i', '-F', '-o', '-P', '-c', '-l', '-S', '-J', '-D', '-X']);

/** `-o FILE`, `--output FILE`, `--output=FILE`, `-oFILE` (glued) → write; other operands → read. */
function outputOption(
  c: Collector,
  seg: Segment,
  short: string,
  long: string,
  valueOptions: ReadonlySet<string>,
): void {
  const { argv, argl } = seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg === short || arg === long) c.add(i + 1, 'write');
    else if (arg.startsWith(`${long}=`)) c.add(i, 'write', false, false, long.length + 1);
    else if (arg.startsWith(short) && arg.length > short.length && !arg.startsWith('--'))
      c.add(i, 'write', false, false, short.length);
  }
  const skip = new Set([...valueOptions, short, long]);
  for (const i of operandIndexes(argv, skip)) c.add(i, 'read');
  void argl;
}

function positional(c: Collector, seg: Segment, uses: readonly PathUse[], rest: PathUse): void {
  operandIndexes(seg.argv).forEach((index, n) => {
    c.add(index, uses[n] ?? rest);
  });
}

function dd(c: Collector, seg: Segment): void {
  seg.argl.forEach((arg, i) => {
    if (arg.startsWith('if=')) c.add(i, 'read', false, false, 3);
    else if (arg.startsWith('of=')) c.add(i, 'write', false, false, 3);
  });
}

function openssl(c: Collector, seg: Segment): void {
  const { argl } = seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '-out' || arg === '-keyout') c.add(i + 1, 'write');
    else if (arg === '-in' || arg === '-key' || arg === '-inkey' || arg === '-infiles' || arg === '-kfile')
      c.add(i + 1, 'read');
  }
}

function curl(c: Collector, seg: Segment): void {
  const { argv, argl } = seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (CURL_WRITES.has(name)) {
      if (eq >= 0) c.add(i, 'write', false, false, eq + 1);
      else c.add(++i, 'write');
    } else if (/^-o./.test(arg)) {
      c.add(i, 'write', false, false, 2);
    } else if (
      name === '--remote-name' ||
      name === '--remote-name-all' ||
      /^-[a-zA-Z]*[OJ][a-zA-Z]*$/.test(arg)
    ) {
      if (!/^-[a-zA-Z]*o$/.test(arg)) c.writesCwd = true;
      else c.add(++i, 'write');
    } else if (/^-[a-zA-Z]+$/.test(arg) && arg.endsWith('o')) {
      c.add(++i, 'write');
    } else if (!arg.startsWith('-') && (argl[i] as string).startsWith('file://')) {
      c.add(i, 'read');
    }
  }
}
const CURL_WRITES = new Set([
  '-o',
  '--output',
  '-c',
  '--cookie-jar',
  '-D',
  '--dump-header',
  '--trace',
  '--trace-ascii',
  '--output-dir',
  '--stderr',
  '--etag-save',
  '--hsts',
  '--alt-svc',
]);

function wget(c: Collector, seg: Segment): void {
  const { argv } = seg;
  let named = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const take = (use: PathUse): void => {
      if (eq >= 0) c.add(i, use, false, false, eq + 1);
      else c.add(++i, use);
    };
    if (name === '-O' || name === '--output-document' || name === '-P' || name === '--directory-prefix') {
      named = true;
      take('write');
    } else if (name === '-o' || name === '--output-file' || name === '-a' || name === '--append-output')
      take('write');
    else if (name === '-i' || name === '--input-file') take('read');
    else if (/^-[OP]./.test(arg)) {
      named = true;
      c.add(i, 'write', false, false, 2);
    }
  }
  if (!named) c.writesCwd = true;
}

function sed(c: Collector, seg: Segment): void {
  const { argv } = seg;
  let inPlace = false;
  let scriptGiven = false;
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('--')) {
      const lower = seg.argl[i] as string;
      if (lower.startsWith('--in-place')) inPlace = true;
      if (lower === '--expression' || lower === '--file') {
        scriptGiven = true;
        i += 1;
      } else if (lower.startsWith('--expression=') || lower.startsWith('--file=')) scriptGiven = true;
    } else if (options && arg.startsWith('-') && arg.length > 1) {
      for (let k = 1; k < arg.length; k += 1) {
        const letter = arg[k];
        if (letter === 'i') {
          inPlace = true;
          break;
        }
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          if (letter !== 'l') scriptGiven = true;
          if (k === arg.length - 1) i += 1;
          break;
        }
      }
    } else if (!scriptGiven) scriptGiven = true;
    else c.add(i, inPlace ? 'write' : 'read', false, inPlace);
  }
}

function sort(c: Collector, seg: Segment): void {
  outputOption(
    c,
    seg,
    '-o',
    '--output',
    new Set([
      '-k',
      '-t',
      '-T',
      '-S',
      '--key',
      '--field-separator',
      '--temporary-directory',
      '--buffer-size',
      '--files0-from',
    ]),
  );
}

function find(c: Collector, seg: Segment): void {
  const { argl } = seg;
  const starts: number[] = [];
  let i = 0;
  for (; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg.startsWith('-') || arg === '(' || arg === '!') break;
    starts.push(i);
  }
  for (; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '-delete') for (const s of starts) c.add(s, 'write');
    else if (arg === '-fprint' || arg === '-fprint0' || arg === '-fls' || arg === '-fprintf')
      c.add(i + 1, 'write');
  }
}

function patch(c: Collector, seg: Segment): void {
  const { argv } = seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-i' || arg === '--input') c.add(i + 1, 'read');
    else if (arg === '-d' || arg === '--directory') c.add(i + 1, 'write');
    else if (arg === '-o' || arg === '--output') c.add(i + 1, 'write');
  }
  const files = operandIndexes(
    argv,
    new Set([
      '-i',
      '--input',
      '-d',
      '--directory',
      '-o',
      '--output',
      '-p',
      '-F',
      '-B',
      '-z',
      '-V',
      '-D',
      '-r',
    ]),
  );
  const first = files[0];
  if (first !== undefined) c.add(first, 'write');
  else c.writesCwd = true;
}

function iconv(c: Collector, seg: Segment): void {
  outputOption(c, seg, '-o', '--output', new Set(['-f', '-t', '--from-code', '--to-code']));
}

function truncate(c: Collector, seg: Segment): void {
  const { argv } = seg;
  const reference = argv.findIndex((a) => a === '-r' || a === '--reference');
  if (reference >= 0) c.add(reference + 1, 'read');
  for (const i of operandIndexes(argv, new Set(['-s', '--size', '-r', '--reference']))) c.add(i, 'write');
}

function touch(c: Collector, seg: Segment): void {
  const { argv } = seg;
  const reference = argv.findIndex((a) => a === '-r' || a === '--reference');
  if (reference >= 0) c.add(reference + 1, 'read');
  for (const i of operandIndexes(argv, new Set(['-r', '--reference', '-d', '--date', '-t'])))
    c.add(i, 'attr');
}

const PARSERS: ReadonlyMap<string, (c: Collector, seg: Segment) => void> = new Map<
  string,
  (c: Collector, seg: Segment) => void
>([
  ['cp', (c, seg) => copyLike(c, seg, 'read', 'write')],
  ['install', (c, seg) => copyLike(c, seg, 'read', 'write')],
  ['ditto', (c, seg) => copyLike(c, seg, 'read', 'write')],
  ['mv', (c, seg) => copyLike(c, seg, 'write', 'write')],
  ['ln', (c, seg) => copyLike(c, seg, 'link', 'write')],
  ['link', (c, seg) => positional(c, seg, ['link'], 'write')],
  ['rsync', (c, seg) => rsyncLike(c, seg, RSYNC_VALUES)],
  ['scp', (c, seg) => rsyncLike(c, seg, SCP_VALUES)],
  ['dd', dd],
  ['tar', tar],
  ['bsdtar', tar],
  ['gtar', tar],
  ['zip', zip],
  ['unzip', unzip],
  ['7z', sevenZip],
  ['7za', sevenZip],
  ['7zz', sevenZip],
  ['openssl', openssl],
  ['curl', curl],
  ['wget', wget],
  ['sed', sed],
  ['gsed', sed],
  ['sort', sort],
  ['uniq', (c, seg) => positional(c, seg, ['read', 'write'], 'read')],
  ['xxd', (c, seg) => positional(c, seg, ['read', 'write'], 'read')],
  ['split', (c, seg) => positional(c, seg, ['read', 'write'], 'read')],
  ['csplit', (c, seg) => positional(c, seg, ['read'], 'read')],
  ['iconv', iconv],
  ['find', find],
  ['gfind', find],
  ['patch', patch],
  ['truncate', truncate],
  ['touch', touch],
]);

/** Redirections: `<` reads, `>`/`>>`/`&>`/`>|` write, `<>` both. */
function redirects(c: Collector, seg: Segment): void {
  for (const redirect of seg.redirects) {
    const op = redirect.op;
    const target = redirect.target;
    if (target === undefined || op === '<<' || op === '<<-' || op === '<<<') continue;
    const text = target.text.toLowerCase();
    if ((op === '>&' || op === '<&') && /^(?:\d+-?|-)$/.test(text)) continue;
    if (op === '<' || op === '<&') c.addText(text, target, 'read');
    else {
      c.addText(text, target, 'write', true);
      if (op === '<>') c.addText(text, target, 'read');
    }
  }
}

/** Every path a simple command names, with what it does to it. */
export function pathUses(seg: Segment): SegmentUses {
  const c = new Collector(seg);
  redirects(c, seg);
  const verb = seg.verb;
  if (verb === '' || META.has(verb) || SKIPPED.has(verb)) return c;
  if (KEY_USERS.has(verb)) return c;
  const parser = PARSERS.get(verb);
  if (parser !== undefined) {
    parser(c, seg);
    return c;
  }
  if (READERS.has(verb)) {
    const recursive =
      ALWAYS_RECURSIVE.has(verb) || recursiveFlag(seg.argv, 'rR', ['--recursive', '--dereference-recursive']);
    seg.argl.forEach((arg, i) => {
      if (!arg.startsWith('-')) c.add(i, 'read', recursive);
    });
    return c;
  }
  if (WRITERS.has(verb) || EDITORS.has(verb)) {
    const keyed = verb === 'tee';
    for (const i of operandIndexes(seg.argv)) c.add(i, 'write', false, keyed);
    return c;
  }
  if (ATTRIBUTES.has(verb)) {
    for (const i of operandIndexes(seg.argv)) c.add(i, 'attr');
    return c;
  }
  if (FILE_DB_CLIENTS.has(verb)) {
    for (const i of operandIndexes(seg.argv)) c.add(i, 'db');
    return c;
  }
  if (COMPRESSORS.has(verb)) {
    compressor(c, seg);
    return c;
  }
  c.unknown = true;
  c.writesCwd = true;
  const spec = INTERPRETERS.get(seg.family);
  if (spec !== undefined) {
    // The inline program is judged as code (detect-gateway-rules); its script and arguments are paths.
    const program = parseInterpreter(seg.argv, spec);
    if (program.code.length > 0 || program.module !== undefined) {
      for (const file of program.files) c.addText(file, undefined, 'unknown');
      return c;
    }
  }
  if (seg.family === 'shell') {
    const payload = shellInvocation(seg.argv).payload;
    if (payload !== undefined) {
      seg.argl.forEach((arg, i) => {
        if (seg.argv[i] !== payload && !arg.startsWith('-')) c.add(i, 'unknown');
      });
      return c;
    }
  }
  everyWord(c, seg, 'unknown');
  return c;
}
