import { WRAPPERS as PEELED, resolveLongOption } from './shell-wrappers.js';

/**
 * The sudo stdin guard: `sudo -S` reads a password from stdin, which lets a model guess
 * passwords by piping them in. Without `terminal.sudo_password` (which the backend feeds to sudo
 * itself) any `sudo -S` / `sudo --stdin` at a command position is refused, in every mode.
 */

const WRAPPERS = new Set([
  'env',
  'exec',
  'nohup',
  'setsid',
  'time',
  'nice',
  'command',
  'builtin',
  'stdbuf',
  'ionice',
  'chrt',
  'taskset',
  'timeout',
  'busybox',
  'toybox',
  'doas',
]);

/**
 * True when one of the simple commands runs `sudo` with `-S`/`--stdin`. `segments` are the
 * simple commands at command positions as detection sees them (a privilege wrapper keeps a
 * segment of its own, with its options). Only when detection produced none (a command it could
 * not read) is the raw text split at plain separators instead.
 */
export function usesSudoStdin(command: string, segments: readonly string[]): boolean {
  const pieces = segments.length > 0 ? segments : command.split(/&&|\|\||[;&|\n`(]|\$\(/);
  return pieces.some((piece) => segmentUsesSudoStdin(piece));
}

function segmentUsesSudoStdin(segment: string): boolean {
  const words = segment
    .normalize('NFKC')
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/^['"]+|['"]+$/g, ''))
    .filter((word) => word !== '');
  let i = 0;
  // Skip wrappers and their options/assignments until the real verb.
  while (i < words.length) {
    const verb = baseName(words[i] as string);
    if (verb === 'sudo') return sudoFlagsReadStdin(words, i + 1);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] as string)) {
      i += 1;
      continue;
    }
    if (!WRAPPERS.has(verb)) return false;
    i += 1;
    while (i < words.length && /^(?:-|\d+$)/.test(words[i] as string)) i += 1;
  }
  return false;
}

const SUDO_LONGS = PEELED.get('sudo')?.longs ?? {};
const SUDO_LONG_NAMES = Object.keys(SUDO_LONGS).map((name) => `--${name}`);

function sudoFlagsReadStdin(words: readonly string[], start: number): boolean {
  for (let i = start; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === '--') return false;
    if (word.startsWith('--')) {
      // sudo accepts unambiguous prefixes: `--std` is `--stdin`, `--us root` is `--user root`.
      const name = resolveLongOption(word, SUDO_LONG_NAMES);
      if (name === '--stdin') return true;
      const kind = name === undefined ? undefined : SUDO_LONGS[name.slice(2)];
      if (typeof kind === 'number' && kind > 0 && !word.includes('=')) i += kind;
      continue;
    }
    if (!word.startsWith('-') || word === '-') return false;
    // A short-option cluster such as -S, -kS, -Su root.
    if (word.slice(1).includes('S')) return true;
    // Options that take a separate argument: skip it.
    if (/^-[A-Za-z]*[ughpCDRTrt]$/.test(word)) i += 1;
  }
  return false;
}

function baseName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash >= 0 ? word.slice(slash + 1) : word;
}
