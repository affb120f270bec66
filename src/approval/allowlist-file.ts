import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Document, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { HermesError } from '../errors/hermes-error.js';

/**
 * Appends entries to `command_allowlist` in config.yaml. The file is read again at save time and
 * edited through yaml's Document API, so comments, key order and hand edits made while the
 * gateway ran all survive; entries are only ever added (one a hand removed is not brought back
 * unless it is being approved again right now). A missing file is created (mode 0600). The new
 * text is written to a temporary file and renamed over the old one, so a crash never leaves half
 * a config behind. Returns the list as it now stands on disk.
 */
export async function appendToCommandAllowlist(
  configPath: string,
  entries: readonly string[],
): Promise<readonly string[]> {
  const text = await readIfExists(configPath);
  const doc: Document = parseDocument(text ?? '');
  if (doc.errors.length > 0) {
    throw new HermesError(
      'config_invalid',
      `${configPath}: not valid YAML, command_allowlist not updated: ${doc.errors[0]?.message ?? ''}`,
    );
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    doc.contents = doc.createNode({});
  }
  if (!isMap(doc.contents)) {
    throw new HermesError('config_invalid', `${configPath}: the top level must be a mapping of keys`);
  }

  const node = doc.get('command_allowlist', true);
  const onDisk: string[] = [];
  if (isSeq(node)) {
    for (const item of node.items) {
      const value = isScalar(item) ? item.value : undefined;
      if (typeof value === 'string') onDisk.push(value);
    }
    for (const entry of unique(entries)) {
      if (onDisk.includes(entry)) continue;
      node.add(doc.createNode(entry));
      onDisk.push(entry);
    }
  } else if (node === undefined || node === null || (isScalar(node) && node.value === null)) {
    const fresh = unique(entries);
    doc.set('command_allowlist', doc.createNode(fresh));
    onDisk.push(...fresh);
  } else {
    throw new HermesError(
      'config_invalid',
      `${configPath}: command_allowlist must be a list of strings; not updated`,
    );
  }

  await writeAtomically(configPath, doc.toString(), text === undefined);
  return onDisk;
}

/**
 * `command_allowlist` of a config.yaml's text: its string entries; [] when the file has no such
 * key; undefined when the text is not valid YAML or the key is not a list (a file caught in the
 * middle of a hand edit: keep what you had).
 */
export function commandAllowlistOf(text: string): string[] | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return undefined;
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return [];
  if (!isMap(doc.contents)) return undefined;
  const node = doc.get('command_allowlist', true);
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) return [];
  if (!isSeq(node)) return undefined;
  const entries: string[] = [];
  for (const item of node.items) {
    const value = isScalar(item) ? item.value : undefined;
    if (typeof value === 'string') entries.push(value);
  }
  return entries;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HermesError('config_unreadable', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function writeAtomically(path: string, text: string, created: boolean): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const mode = created ? 0o600 : (await stat(path)).mode & 0o777;
    await writeFile(temp, text, { mode, flag: 'wx' });
    // writeFile's mode is masked by the umask; set it exactly.
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new HermesError('config_unreadable', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function unique(entries: readonly string[]): string[] {
  return [...new Set(entries.filter((entry) => entry.trim() !== ''))];
}
