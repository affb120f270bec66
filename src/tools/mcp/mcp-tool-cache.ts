import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { McpToolInfo } from './connect-mcp-server.js';

const cachedToolSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.unknown(),
  destructive: z.boolean(),
  readOnly: z.boolean(),
});
const cacheSchema = z.object({
  version: z.literal(1),
  servers: z.record(z.string(), z.object({ listedAt: z.number(), tools: z.array(cachedToolSchema) })),
});
type CacheFile = z.infer<typeof cacheSchema>;

export interface CachedListing {
  readonly listedAt: number;
  readonly tools: readonly McpToolInfo[];
}

/**
 * The last successful tool listing of each MCP server, kept in `$HERMES_HOME/cache/mcp-tools.json`
 * so the toolsets are known before (or without) a connection: `tools list`, and the gateway
 * between start and the first successful connect.
 */
export class McpToolCache {
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, 'cache', 'mcp-tools.json');
  }

  read(server: string): CachedListing | undefined {
    return this.#load().servers[server];
  }

  write(server: string, listing: CachedListing): void {
    const file = this.#load();
    file.servers[server] = { listedAt: listing.listedAt, tools: listing.tools.map((tool) => ({ ...tool })) };
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(file), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // A cache that cannot be written only costs the next start its early listing.
    }
  }

  #load(): CacheFile {
    try {
      const parsed = cacheSchema.safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // Missing or unreadable: start empty.
    }
    return { version: 1, servers: {} };
  }
}
