// Plain JavaScript: bin/hermes-gateway and scripts/build.mjs use it before any TypeScript loader runs.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What the compiled build is made from: every file under src/, and the compiler settings. */
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** The file a build writes beside its output: which sources it was made from. */
export const BUILD_INFO = 'dist/build-info.json';

/** Every input file, sorted, with its stats; folders' stats too (a removal or rename changes them). */
function walk(root) {
  const files = [];
  const folders = [];
  const visit = (path) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      folders.push(stats);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else {
      files.push({ name: relative(root, path).split(sep).join('/'), stats });
    }
  };
  for (const input of INPUTS) visit(join(root, input));
  return { files: files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), folders };
}

/**
 * The quick check (one stat per entry, ≈ 2 ms for src/): how many files, their total size, and the
 * newest modification time of any file or folder. An edit, or an added, removed or renamed file,
 * changes it.
 */
function summaryOf({ files, folders }) {
  let bytes = 0;
  let newestMtimeMs = 0;
  for (const { stats } of files) {
    bytes += stats.size;
    newestMtimeMs = Math.max(newestMtimeMs, stats.mtimeMs);
  }
  for (const stats of folders) newestMtimeMs = Math.max(newestMtimeMs, stats.mtimeMs);
  return { files: files.length, bytes, newestMtimeMs };
}

/** The exact check: a hash of every input's path and content (≈ 20 ms); mtimes play no part. */
function digestOf(root, { files }) {
  const hash = createHash('sha256');
  for (const { name } of files) {
    hash.update(name);
    hash.update('\0');
    hash.update(readFileSync(join(root, name)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** What a build records about the sources it compiles. */
export function sourceFingerprint(root) {
  const tree = walk(root);
  return { summary: summaryOf(tree), digest: digestOf(root, tree) };
}

const sameSummary = (a, b) =>
  typeof a === 'object' &&
  a !== null &&
  a.files === b.files &&
  a.bytes === b.bytes &&
  a.newestMtimeMs === b.newestMtimeMs;

/**
 * Whether `dist/` holds a build of the sources as they are now: `{ current: true }`, or
 * `{ current: false, reason }` saying why the sources have to run instead. The quick summary
 * decides when it matches; otherwise the content digest does, so files copied or checked out
 * again with new mtimes (a container image, a fresh checkout) still count as built.
 */
export function distStatus(root) {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(join(root, BUILD_INFO), 'utf8'));
  } catch {
    return { current: false, reason: 'dist/ holds no build (npm run build makes one)' };
  }
  const tree = walk(root);
  if (sameSummary(recorded?.summary, summaryOf(tree))) return { current: true };
  if (typeof recorded?.digest === 'string' && recorded.digest === digestOf(root, tree))
    return { current: true };
  return {
    current: false,
    reason: 'dist/ was built from other sources than src/ (npm run build updates it)',
  };
}
