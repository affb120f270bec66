import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { buildFakeMcpStdio } from '../../fakes/fake-mcp/build-fake-mcp-stdio.js';

/**
 * Builds the fake stdio MCP server for the test file (removed after it) and returns a function
 * making `mcp_servers:` entries that start it, as a configured `command:` would.
 */
export function useFakeMcpStdio(): (extra?: Record<string, unknown>) => Record<string, unknown> {
  let built: Awaited<ReturnType<typeof buildFakeMcpStdio>> | undefined;
  beforeAll(async () => {
    built = await buildFakeMcpStdio();
  });
  afterAll(() => built?.cleanup());
  return (extra = {}) => {
    if (built === undefined) throw new Error('the fake MCP server is not built yet (use it inside a test)');
    return { command: process.execPath, args: [built.script], ...extra };
  };
}

/** Writes `$HOME/config.yaml` with the given top-level sections. */
export function writeConfig(home: string, sections: Record<string, unknown>): void {
  writeFileSync(join(home, 'config.yaml'), stringify(sections));
}

/** `${NAME}`: a reference to a gateway environment variable in an MCP server's env or headers. */
export function envRef(name: string): string {
  return `\${${name}}`;
}
