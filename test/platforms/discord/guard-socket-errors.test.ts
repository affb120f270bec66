import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { guardOrphanSocketErrors } from '../../../src/platforms/discord/guard-socket-errors.js';

/** A TCP server that resets every connection: a gateway socket failing while it connects. */
async function resettingServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.resetAndDestroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}/gateway`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('guardOrphanSocketErrors', () => {
  it('turns an error on a ws socket nobody listens to into a report instead of a crash', async () => {
    const reported: unknown[] = [];
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    const server = await resettingServer();
    try {
      guardOrphanSocketErrors((error) => reported.push(error));
      // What @discordjs/ws leaves behind when it destroys a shard that is still connecting.
      const orphan = new WebSocket(server.url);
      // (events.once would add an error listener of its own.)
      await new Promise((resolve) => orphan.on('close', resolve));
      expect(uncaught).toEqual([]);
      expect(reported).toHaveLength(1);
      expect(String(reported[0])).toMatch(/ECONNRESET|socket hang up/);

      // A socket with its own error listener still gets its errors, and nothing is reported.
      const owned = new WebSocket(server.url);
      const [error] = (await once(owned, 'error')) as [Error];
      expect(error.message).toMatch(/ECONNRESET|socket hang up/);
      expect(reported).toHaveLength(1);
      expect(guardOrphanSocketErrors(() => undefined)).toBe(false);
    } finally {
      process.off('uncaughtException', onUncaught);
      await server.close();
    }
  });
});
