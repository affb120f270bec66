import { readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';

const MAX_LINK_DEPTH = 40;

/**
 * The path the OS would really touch: symlinks are followed, `..` is collapsed, and for a path
 * that does not exist yet the deepest existing ancestor is resolved and the rest appended. A
 * dangling symlink resolves to where it points, since writing through it would create that file.
 */
export async function realPathOf(path: string, depth = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Does not exist (or cannot be resolved): look at the link itself, then at the parent.
  }
  if (depth < MAX_LINK_DEPTH) {
    try {
      const target = await readlink(path);
      return await realPathOf(resolve(dirname(path), target), depth + 1);
    } catch {
      // Not a symlink.
    }
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realPathOf(parent, depth), basename(path));
}

/** Files outside HERMES_HOME that no file tool may write (mirrors the terminal's sensitive writes). */
function sensitiveUserFiles(home: string): { files: string[]; dirs: string[] } {
  return {
    files: [
      '/etc/passwd',
      '/etc/shadow',
      '/etc/sudoers',
      join(home, '.netrc'),
      join(home, '.pgpass'),
      join(home, '.npmrc'),
      join(home, '.pypirc'),
      join(home, '.bashrc'),
      join(home, '.zshrc'),
      join(home, '.profile'),
      join(home, '.bash_profile'),
      join(home, '.zprofile'),
    ],
    dirs: [
      '/etc/sudoers.d',
      join(home, '.ssh'),
      join(home, '.aws'),
      join(home, '.gnupg'),
      join(home, '.kube'),
    ],
  };
}

const foldCase = process.platform === 'darwin' || process.platform === 'win32';
const key = (path: string): string => (foldCase ? path.toLowerCase() : path);
const same = (a: string, b: string): boolean => key(a) === key(b);
const inside = (child: string, dir: string): boolean =>
  same(child, dir) || key(child).startsWith(key(dir) + sep);

/** The gateway's own secret file: tokens and keys live there, so no file tool reads or writes it. */
async function gatewayEnvFiles(config: Config): Promise<string[]> {
  const lexical = join(config.home, '.env');
  return [lexical, await realPathOf(lexical)];
}

/**
 * Why writing `realPath` (already resolved with `realPathOf`) is refused, or undefined when it is
 * allowed: the gateway's `.env`, `config.yaml` and `state.db*`, and a short list of the user's
 * credential and shell start-up files.
 */
export async function writeRefusal(realPath: string, config: Config): Promise<string | undefined> {
  const homes = [config.home, await realPathOf(config.home)];
  for (const env of await gatewayEnvFiles(config)) {
    if (same(realPath, env)) return 'it is the gateway’s secrets file ($HERMES_HOME/.env)';
  }
  for (const file of [config.configPath, await realPathOf(config.configPath)]) {
    if (same(realPath, file)) return 'it is the gateway’s configuration ($HERMES_HOME/config.yaml)';
  }
  const name = basename(realPath);
  if (homes.some((home) => same(dirname(realPath), home)) && name.toLowerCase().startsWith('state.db')) {
    return 'it is the gateway’s state database ($HERMES_HOME/state.db)';
  }
  const user = sensitiveUserFiles(homedir());
  for (const file of user.files) {
    if (same(realPath, file) || same(realPath, await realPathOf(file))) {
      return 'it is a credential or shell start-up file';
    }
  }
  for (const dir of user.dirs) {
    if (inside(realPath, dir) || inside(realPath, await realPathOf(dir))) {
      return 'it is inside a credentials directory';
    }
  }
  return undefined;
}

/** Throws a `path_refused` error when `realPath` may not be written. */
export async function assertWritable(realPath: string, shownAs: string, config: Config): Promise<void> {
  const why = await writeRefusal(realPath, config);
  if (why !== undefined) {
    throw new HermesError(
      'path_refused',
      `Refusing to write ${shownAs}: ${why}. File tools may not change it; ask the user to edit it themselves.`,
    );
  }
}

/** A process environment under /proc: the gateway's own holds every token it was started with. */
const PROC_ENVIRON = /^\/proc\/(?:[^/]+\/)+environ$/;

/**
 * Why reading `realPath` is refused, or undefined: the gateway's `.env` and process
 * environments under /proc. Everything else may be read.
 */
export async function readRefusal(realPath: string, config: Config): Promise<string | undefined> {
  if (PROC_ENVIRON.test(realPath)) return 'process environments hold the gateway’s tokens and keys';
  if (basename(realPath).toLowerCase() !== '.env') return undefined;
  const envFiles = await gatewayEnvFiles(config);
  return envFiles.some((env) => same(realPath, env))
    ? 'it is the gateway’s secrets file ($HERMES_HOME/.env) and holds tokens and keys'
    : undefined;
}

/** Throws a `path_refused` error when `realPath` may not be read. */
export async function assertReadable(realPath: string, shownAs: string, config: Config): Promise<void> {
  const why = await readRefusal(realPath, config);
  if (why !== undefined) throw new HermesError('path_refused', `Refusing to read ${shownAs}: ${why}.`);
}
