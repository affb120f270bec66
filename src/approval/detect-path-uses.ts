import { shellInvocation } from './detect-exec-rules.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import type { Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * What a simple command does with the paths it names: reads them, writes (creates, overwrites,
 * moves, deletes) them, changes their attributes, links them, opens them as a database — or
 * something unknown. Known programs are parsed option by option; every other program is
 * `unknown`, which the rules treat as "may write" for the gateway's own home (fail closed).
 */

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

/** Programs that only look at names and metadata, never at content. */
const META = new Set([
  'ls',
  'll',
  'dir',
  'stat',
  'file',
  'test',
  '[',
  '[[',
  'du',
  'df',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'echo',
  'printf',
  'cd',
  'pushd',
  'popd',
  'tree',
  'lsof',
  'fuser',
  'which',
  'whereis',
  'type',
  'command',
  'hash',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'sum',
  'md5',
  'shasum',
  'wc',
  'true',
  'false',
  ':',
  'exit',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'unset',
  'id',
  'date',
  'sleep',
  'pwd',
  'namei',
  'getfacl',
  'lsattr',
  'exa',
  'eza',
  'lsd',
  'ncdu',
]);

/** Programs that use keys and credentials for what they are (log in, sign) without printing them. */
const KEY_USERS = new Set([
  'ssh',
  'ssh-add',
  'ssh-keygen',
  'ssh-copy-id',
  'ssh-keyscan',
  'mosh',
  'autossh',
  'sshfs',
  'sftp',
  'kubectl',
  'oc',
  'helm',
  'k9s',
  'kubectx',
  'aws',
  'gcloud',
  'gsutil',
  'az',
  'doctl',
  'terraform',
  'tofu',
  'gh',
  'glab',
  'gpg',
  'gpg2',
  'docker',
  'podman',
  'nerdctl',
  'openvpn',
  'wg',
  'wg-quick',
]);

/** Programs whose operands are only read. */
const READERS = new Set([
  'cat',
  'tac',
  'nl',
  'less',
  'more',
  'most',
  'pg',
  'head',
  'tail',
  'base64',
  'base32',
  'basenc',
  'od',
  'hexdump',
  'hd',
  'strings',
  'grep',
  'egrep',
  'fgrep',
  'zgrep',
  'zegrep',
  'rg',
  'ag',
  'ack',
  'awk',
  'diff',
  'cmp',
  'comm',
  'join',
  'paste',
  'cut',
  'column',
  'fold',
  'fmt',
  'pr',
  'expand',
  'unexpand',
  'look',
  'jq',
  'yq',
  'zcat',
  'bzcat',
  'xzcat',
  'zstdcat',
  'lz4cat',
  'zless',
  'zmore',
  'bat',
  'batcat',
  'view',
  'source',
  '.',
  'lp',
  'lpr',
  'xclip',
  'xsel',
  'uuencode',
  'envsubst',
  'vimdiff',
  'colordiff',
  'delta',
  'pygmentize',
  'highlight',
  'tr',
  'rev',
  'shuf',
]);
const ALWAYS_RECURSIVE = new Set(['rg', 'ag', 'ack']);

const EDITORS = new Set([
  'nano',
  'vi',
  'vim',
  'nvim',
  'gvim',
  'emacs',
  'emacsclient',
  'ed',
  'ex',
  'pico',
  'micro',
  'joe',
  'kak',
  'hx',
  'helix',
  'code',
  'subl',
  'gedit',
  'kate',
  'mcedit',
  'ne',
  'jed',
]);

/** Every operand is written, deleted or created. */
const WRITERS = new Set([
  'rm',
  'rimraf',
  'unlink',
  'rmdir',
  'shred',
  'wipe',
  'srm',
  'truncate',
  'tee',
  'sponge',
]);
/** Change metadata or create empty entries: only HERMES_HOME is off limits for them. */
const ATTRIBUTES = new Set([
  'chmod',
  'chown',
  'chgrp',
  'chattr',
  'setfacl',
  'chcon',
  'setfattr',
  'xattr',
  'mkdir',
  'mkfifo',
  'mknod',
]);

/** File database clients: naming a file opens (and may change) it. */
export const FILE_DB_CLIENTS: ReadonlySet<string> = new Set([
  'sqlite3',
  'sqlite',
  'sqlite-utils',
  'litecli',
  'duckdb',
  'datasette',
  'sqldiff',
  'sqlite3_analyzer',
  'sqlitebrowser',
  'sqlite_web',
  'sqlite-web',
  'dbhash',
]);

const COMPRESSORS = new Set([
  'gzip',
  'gunzip',
  'pigz',
  'unpigz',
  'bzip2',
  'bunzip2',
  'pbzip2',
  'xz',
  'unxz',
  'lzma',
  'unlzma',
  'zstd',
  'unzstd',
  'lz4',
  'lzip',
  'compress',
  'uncompress',
]);

/** Programs judged elsewhere (their arguments are images, resources or remote specs). */
const SKIPPED = new Set(['docker', 'podman', 'nerdctl', 'kubectl', 'oc', 'helm']);

/** A program the uses table knows (metadata, key users, readers, writers, parsed ones). */
export function knownProgram(verb: string): boolean {
  return (
    META.has(verb) ||
    KEY_USERS.has(verb) ||
    READERS.has(verb) ||
    WRITERS.has(verb) ||
    EDITORS.has(verb) ||
    ATTRIBUTES.has(verb) ||
    FILE_DB_CLIENTS.has(verb) ||
    COMPRESSORS.has(verb) ||
    PARSERS.has(verb)
  );
}

/** Metadata-only programs and key users: nothing they name is read out or written. */
export function leavesFilesAlone(verb: string): boolean {
  return META.has(verb) || KEY_USERS.has(verb) || SKIPPED.has(verb);
}

export function isReader(verb: string): boolean {
  return READERS.has(verb);
}

class Collector {
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
function operandIndexes(argv: readonly string[], valueOptions: ReadonlySet<string> = EMPTY): number[] {
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
function everyWord(c: Collector, seg: Segment, use: PathUse): void {
  seg.argl.forEach((arg, i) => {
    if (arg.startsWith('-')) {
      const eq = arg.indexOf('=');
      if (eq > 0) c.add(i, use, false, false, eq + 1);
    } else {
      c.add(i, use);
    }
  });
}

function recursiveFlag(argv: readonly string[], letters: string, long: readonly string[]): boolean {
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
function tar(c: Collector, seg: Segment): void {
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

function zip(c: Collector, seg: Segment): void {
  const files = operandIndexes(seg.argv, new Set(['-x', '-i', '-b', '-n', '-P', '--password']));
  const out = files.shift();
  if (out !== undefined) c.add(out, 'write');
  for (const i of files) c.add(i, 'read', true);
}

function unzip(c: Collector, seg: Segment): void {
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

function sevenZip(c: Collector, seg: Segment): void {
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

function compressor(c: Collector, seg: Segment): void {
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
