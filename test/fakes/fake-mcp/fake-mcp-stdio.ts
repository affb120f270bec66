/**
 * The fake MCP server as a stdio program (`node --import tsx fake-mcp-stdio.ts`), as a gateway
 * starts a configured `command:`. `crash` makes the program exit, like a server that dies.
 * FAKE_MCP_STARTS (a file path): each start appends a line, so tests can count restarts.
 */
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFakeMcpServer } from './fake-mcp-server.js';

const starts = process.env['FAKE_MCP_STARTS'];
if (starts !== undefined) appendFileSync(starts, `${process.pid}\n`);
const server = createFakeMcpServer({
  label: 'stdio',
  onCrash: () => setTimeout(() => process.exit(3), 20),
});
process.stderr.write('fake mcp server ready\n');
await server.connect(new StdioServerTransport());
