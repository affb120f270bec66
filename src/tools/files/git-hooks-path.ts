import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { relativeInside, type SensitiveMatch } from '../../approval/sensitive-paths.js';
import { realPathOf } from './protected-paths.js';

/** Directories walked up from a file to find its repository. */
const MAX_LEVELS = 64;
/** Largest git config read (a bigger one is not a config git would be happy with either). */
const MAX_CONFIG_BYTES = 256 * 1024;

const HOOKS_PATH_MATCH: SensitiveMatch = {
  area: 'git_hooks',
  what: 'a git hook (in the directory core.hooksPath names; runs on the next git command)',
  write: 'dangerous',
  read: 'none',
};

/** Every `core.hooksPath` value of a git config file, in order (the last one wins in git). */
export function hooksPathsOf(configText: string): string[] {
  const values: string[] = [];
  let inCore = false;
  for (const raw of configText.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*/.exec(line);
    if (header !== null) {
      inCore = (header[1] ?? '').toLowerCase() === 'core' && !header[0].includes('"');
      line = line.slice(header[0].length);
    }
    if (!inCore) continue;
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (entry === null) continue;
    values.push(gitValue(entry[1] ?? ''));
  }
  return values.filter((value) => value !== '');
}

/** A git config value: quotes removed, an unquoted `#` or `;` starts a comment. */
function gitValue(text: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1] as string;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && (c === '#' || c === ';')) {
      break;
    } else {
      out += c;
    }
  }
  return out.trim();
}

async function readSmall(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_CONFIG_BYTES) return undefined;
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The work tree and the git directories (own and common) of the repository holding `dir`. */
async function repositoryOf(
  dir: string,
): Promise<{ workTree: string; gitDirs: readonly string[] } | undefined> {
  let current = dir;
  for (let level = 0; level < MAX_LEVELS; level += 1) {
    const dotGit = join(current, '.git');
    const info = await stat(dotGit).catch(() => undefined);
    if (info?.isDirectory()) return { workTree: current, gitDirs: [dotGit] };
    if (info?.isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec((await readSmall(dotGit)) ?? '');
      if (pointer !== null) {
        const gitDir = resolve(current, (pointer[1] ?? '').trim());
        const common = (await readSmall(join(gitDir, 'commondir')))?.trim();
        const gitDirs = common === undefined || common === '' ? [gitDir] : [gitDir, resolve(gitDir, common)];
        return { workTree: current, gitDirs };
      }
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

/**
 * When `realPath` lies in a directory that git runs hooks from because `core.hooksPath` says so
 * (in the repository's config or the user's global config), the table's git-hook entry for it.
 * `.git/hooks` itself is in the table; this finds the configured elsewhere (`.githooks/`,
 * `.husky/_`, an absolute path). Every value found is honoured, not only the last one: a file
 * that any of them would make a hook is treated as one.
 */
export async function hooksPathMatch(realPath: string, home: string): Promise<SensitiveMatch | undefined> {
  const repo = await repositoryOf(dirname(realPath));
  const configs = [
    ...(repo?.gitDirs.flatMap((gitDir) => [join(gitDir, 'config'), join(gitDir, 'config.worktree')]) ?? []),
    join(home, '.gitconfig'),
    join(home, '.config', 'git', 'config'),
    '/etc/gitconfig',
  ];
  for (const config of configs) {
    const text = await readSmall(config);
    if (text === undefined) continue;
    for (const value of hooksPathsOf(text)) {
      const expanded = value === '~' ? home : value.startsWith('~/') ? join(home, value.slice(2)) : value;
      if (!isAbsolute(expanded) && repo === undefined) continue;
      const hooksDir = isAbsolute(expanded) ? expanded : resolve(repo?.workTree ?? '/', expanded);
      for (const dir of new Set([hooksDir, await realPathOf(hooksDir)])) {
        const rel = relativeInside(realPath, dir);
        if (rel !== undefined && rel !== '') return HOOKS_PATH_MATCH;
      }
    }
  }
  return undefined;
}
