import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';

/** The fake MCP server's stdio program, started as a configured `command:` would be. */
export const FAKE_MCP_STDIO = resolve(import.meta.dirname, '../../fakes/fake-mcp/fake-mcp-stdio.ts');

/** A `mcp_servers:` entry that starts the fake stdio server. */
export function stdioServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', 'tsx', FAKE_MCP_STDIO], ...extra };
}

/** Writes `$HOME/config.yaml` with the given top-level sections. */
export function writeConfig(home: string, sections: Record<string, unknown>): void {
  writeFileSync(join(home, 'config.yaml'), stringify(sections));
}

/** `${NAME}`: a reference to a gateway environment variable in an MCP server's env or headers. */
export function envRef(name: string): string {
  return `\${${name}}`;
}
