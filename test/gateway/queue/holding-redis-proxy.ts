import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface HoldingRedisProxy {
  /** `redis://127.0.0.1:<port>`: what the code under test connects to. */
  readonly url: string;
  /**
   * From now on, bytes sent to Redis by connections whose name (`CLIENT SETNAME`, ioredis'
   * `connectionName`) contains `name` wait in the proxy, in order; the returned function sends
   * them on and lets later bytes through again. Replies are never held.
   */
  hold(name: string): () => void;
  /** How many chunks the held connections whose name contains `name` have sent meanwhile. */
  heldChunks(name: string): number;
  close(): Promise<void>;
}

interface Link {
  /** What the client sent before its name was seen, to find `CLIENT SETNAME` in. */
  head: string;
  name: string | undefined;
  held: Buffer[] | undefined;
  readonly upstream: Socket;
}

/**
 * A TCP proxy in front of Redis that can hold one named connection's commands: a way to keep a
 * command of the code under test in flight, at the protocol level, while the test acts.
 */
export async function startHoldingRedisProxy(port = 6379, host = '127.0.0.1'): Promise<HoldingRedisProxy> {
  const links = new Set<Link>();
  const holds = new Set<string>();
  const isHeld = (link: Link) =>
    link.name !== undefined && [...holds].some((name) => link.name?.includes(name));
  const server: Server = createServer((client) => {
    const upstream = connect({ port, host });
    const link: Link = { head: '', name: undefined, held: undefined, upstream };
    links.add(link);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (link.name === undefined) {
        link.head += chunk.toString('latin1');
        const named = /setname\r\n\$\d+\r\n([^\r]*)\r\n/i.exec(link.head);
        if (named) link.name = named[1];
        if (link.name !== undefined && isHeld(link)) link.held ??= [];
      }
      if (link.held) link.held.push(chunk);
      else upstream.write(chunk);
    });
    const drop = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('error', drop);
    upstream.on('error', drop);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port: proxyPort } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    hold(name) {
      holds.add(name);
      for (const link of links) if (isHeld(link)) link.held ??= [];
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds.delete(name);
        for (const link of links) {
          if (link.held === undefined || isHeld(link)) continue;
          const chunks = link.held;
          link.held = undefined;
          for (const chunk of chunks) link.upstream.write(chunk);
        }
      };
    },
    heldChunks(name) {
      let count = 0;
      for (const link of links) if (link.name?.includes(name)) count += link.held?.length ?? 0;
      return count;
    },
    async close() {
      for (const link of links) link.upstream.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
