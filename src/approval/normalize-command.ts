/**
 * Text-level normalisation applied before a command is scanned. Word-level steps (backslash
 * escapes, empty quotes, `$IFS`, `$'\x..'` strings, case folding except flags) happen in the
 * shell scanner and the rules, where quoting is known.
 */

export interface NormalizeOptions {
  /** Absolute home directory; its occurrences are folded to `~`. */
  readonly homeDir?: string;
  /** Absolute HERMES_HOME; its occurrences are folded to `~/.hermes-gateway`. */
  readonly hermesHome?: string;
}

/** What `$HERMES_HOME` and the configured HERMES_HOME are folded to. */
export const HERMES_HOME_ALIAS = '~/.hermes-gateway';

const INVISIBLE =
  /[\u0000\u001b\u0080-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * The detection view of a command: terminal escapes (7- and 8-bit), NUL bytes, zero-width and
 * bidi controls removed, Unicode NFKC (full-width letters become ASCII), CRLF → LF,
 * backslash-newline continuations joined, and home paths folded (`$HOME`, `${HOME}` and the
 * absolute home → `~`; `$HERMES_HOME` and the absolute HERMES_HOME → `~/.hermes-gateway`).
 */
export function normalizeCommand(command: string, options: NormalizeOptions = {}): string {
  let text = stripControlSequences(command);
  if (NON_ASCII.test(text)) text = text.normalize('NFKC');
  if (text.includes('\r\n')) text = text.replaceAll('\r\n', '\n');
  text = joinContinuations(text);
  return foldHomePaths(text, options);
}

/**
 * The view closest to what the shell itself reads: only NUL bytes removed and home paths
 * folded. Detection scans it too whenever it differs from `normalizeCommand`, so a step that
 * drops characters can never hide a command the shell would still run.
 */
export function shellViewOfCommand(command: string, options: NormalizeOptions = {}): string {
  return foldHomePaths(command.includes('\u0000') ? command.replaceAll('\u0000', '') : command, options);
}

/** Removes ANSI/ECMA-48 escape sequences, C1 controls, NUL bytes and invisible format characters. */
export function stripControlSequences(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x1b || (c >= 0x80 && c <= 0x9f) || c === 0 || isInvisibleFormat(c)) {
      parts.push(text.slice(from, i));
      i = skipControl(text, i);
      from = i;
    } else {
      i += 1;
    }
  }
  parts.push(text.slice(from));
  return parts.join('');
}

function isInvisibleFormat(c: number): boolean {
  return (
    c === 0xad ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0x2066 && c <= 0x2069) ||
    c === 0xfeff
  );
}

/** Returns the index just after the control sequence starting at `i`. */
function skipControl(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x1b) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x5b) return skipCsi(text, i + 2);
    if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) {
      return skipControlString(text, i + 2);
    }
    // Charset designations take one more byte (ESC ( B); other escapes are two bytes.
    if (next >= 0x20 && next <= 0x2f) return Math.min(text.length, i + 3);
    return Math.min(text.length, i + 2);
  }
  if (c === 0x9b) return skipCsi(text, i + 1);
  if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f)
    return skipControlString(text, i + 1);
  return i + 1;
}

function skipCsi(text: string, from: number): number {
  let j = from;
  while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j += 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j += 1;
  if (j < text.length && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j += 1;
  return j;
}

/** OSC/DCS/SOS/PM/APC strings run to BEL or ST (ESC \ or 0x9c). */
function skipControlString(text: string, from: number): number {
  for (let j = from; j < text.length; j += 1) {
    const c = text.charCodeAt(j);
    if (c === 0x07 || c === 0x9c) return j + 1;
    if (c === 0x1b && text.charCodeAt(j + 1) === 0x5c) return j + 2;
  }
  return text.length;
}

/** Joins `\<newline>` continuations, leaving an escaped backslash before a newline alone. */
function joinContinuations(text: string): string {
  let at = text.indexOf('\\\n');
  if (at < 0) return text;
  const parts: string[] = [];
  let from = 0;
  while (at >= 0) {
    let run = 1;
    while (at - run >= 0 && text.charCodeAt(at - run) === 0x5c) run += 1;
    if (run % 2 === 1) {
      parts.push(text.slice(from, at));
      from = at + 2;
    }
    at = text.indexOf('\\\n', at + 2);
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** Folds the home directory and HERMES_HOME, spelled as variables or absolute paths. */
export function foldHomePaths(text: string, options: NormalizeOptions): string {
  let out = text;
  if (out.includes('$')) {
    out = replaceVariable(out, 'HERMES_HOME', HERMES_HOME_ALIAS);
    out = replaceVariable(out, 'HOME', '~');
  }
  const hermesHome = foldablePath(options.hermesHome);
  const homeDir = foldablePath(options.homeDir);
  if (hermesHome !== undefined) out = replacePath(out, hermesHome, HERMES_HOME_ALIAS);
  if (homeDir !== undefined && homeDir !== hermesHome) out = replacePath(out, homeDir, '~');
  return out;
}

/** Top-level directories never folded away (folding them would hide a system-directory delete). */
const TOP_LEVEL_KEEP = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'media',
  'mnt',
  'opt',
  'private',
  'proc',
  'run',
  'sbin',
  'snap',
  'srv',
  'sys',
  'tmp',
  'usr',
  'var',
  'users',
  'volumes',
  'system',
  'library',
]);

/** An absolute path worth folding: two components or more, or one that is not a system directory. */
const foldable = new Map<string, string | undefined>();

/** `foldablePath`, remembered (the same two paths come with every command). */
function foldablePath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  if (foldable.has(path)) return foldable.get(path);
  const result = computeFoldablePath(path);
  if (foldable.size < 16) foldable.set(path, result);
  return result;
}

function computeFoldablePath(path: string): string | undefined {
  const trimmed = path.replace(/\/+$/, '');
  if (!trimmed.startsWith('/')) return undefined;
  const parts = trimmed.split('/').filter((part) => part !== '');
  if (parts.length >= 2) return trimmed;
  const only = parts[0]?.toLowerCase();
  return only !== undefined && !TOP_LEVEL_KEEP.has(only) ? trimmed : undefined;
}

function replaceVariable(text: string, name: string, replacement: string): string {
  let out = text.replaceAll(`\${${name}}`, replacement);
  const plain = `$${name}`;
  let at = out.indexOf(plain);
  if (at < 0) return out;
  const parts: string[] = [];
  let from = 0;
  while (at >= 0) {
    const after = out.charCodeAt(at + plain.length);
    if (!isNameCode(after)) {
      parts.push(out.slice(from, at), replacement);
      from = at + plain.length;
    }
    at = out.indexOf(plain, at + plain.length);
  }
  parts.push(out.slice(from));
  out = parts.join('');
  return out;
}

function replacePath(text: string, path: string, replacement: string): string {
  let at = text.indexOf(path);
  if (at < 0) return text;
  const parts: string[] = [];
  let from = 0;
  while (at >= 0) {
    const before = at === 0 ? Number.NaN : text.charCodeAt(at - 1);
    const after = text.charCodeAt(at + path.length);
    if (!isPathCode(before) && (Number.isNaN(after) || after === 0x2f || !isPathCode(after))) {
      parts.push(text.slice(from, at), replacement);
      from = at + path.length;
    }
    at = text.indexOf(path, at + path.length);
  }
  parts.push(text.slice(from));
  return parts.join('');
}

function isNameCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isPathCode(c: number): boolean {
  return isNameCode(c) || c === 0x2e || c === 0x2d || c === 0x2f || c === 0x7e;
}
