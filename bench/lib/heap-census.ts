import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

/** Live objects of one kind in a heap snapshot: V8's node type plus the constructor or name. */
export interface HeapKind {
  readonly kind: string;
  readonly count: number;
  readonly bytes: number;
}

/** What grew between two snapshots, per kind. */
export interface HeapGrowth {
  readonly kind: string;
  readonly added: number;
  readonly added_bytes: number;
}

interface SnapshotFile {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: unknown[] } };
  readonly nodes: number[];
  readonly strings: string[];
}

/** Writes a heap snapshot of this process (V8 collects garbage first) to a temporary file. */
export function takeHeapSnapshot(): string {
  return writeHeapSnapshot(join(tmpdir(), `hermes-bench-${randomBytes(6).toString('hex')}.heapsnapshot`));
}

/**
 * Counts the objects of a snapshot file by kind and deletes the file. Kinds are
 * `object:<constructor>`, `closure:<function>`, `string`, `array`… (the node type, with the name
 * for objects and closures, where names tell what holds the memory). Parsing a snapshot takes
 * memory of its own: measure first, count after.
 */
export function heapCensus(file: string): Map<string, HeapKind> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as SnapshotFile;
    const fields = parsed.snapshot.meta.node_fields;
    const typeNames = parsed.snapshot.meta.node_types[0] as string[];
    const stride = fields.length;
    const typeAt = fields.indexOf('type');
    const nameAt = fields.indexOf('name');
    const sizeAt = fields.indexOf('self_size');
    const census = new Map<string, { count: number; bytes: number }>();
    for (let i = 0; i < parsed.nodes.length; i += stride) {
      const type = typeNames[parsed.nodes[i + typeAt] ?? 0] ?? 'unknown';
      const named = type === 'object' || type === 'closure' || type === 'native';
      const kind = named ? `${type}:${parsed.strings[parsed.nodes[i + nameAt] ?? 0] ?? ''}` : type;
      const entry = census.get(kind) ?? { count: 0, bytes: 0 };
      entry.count += 1;
      entry.bytes += parsed.nodes[i + sizeAt] ?? 0;
      census.set(kind, entry);
    }
    return new Map([...census].map(([kind, entry]) => [kind, { kind, ...entry }]));
  } finally {
    rmSync(file, { force: true });
  }
}

/** Kinds that gained objects from `before` to `after`, most added first. */
export function heapGrowth(before: Map<string, HeapKind>, after: Map<string, HeapKind>): HeapGrowth[] {
  const grown: HeapGrowth[] = [];
  for (const [kind, now] of after) {
    const then = before.get(kind);
    const added = now.count - (then?.count ?? 0);
    if (added > 0) grown.push({ kind, added, added_bytes: now.bytes - (then?.bytes ?? 0) });
  }
  return grown.sort((a, b) => b.added - a.added);
}
