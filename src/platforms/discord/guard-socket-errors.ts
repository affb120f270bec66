import { WebSocket } from 'ws';

const GUARDED = Symbol.for('hermes-gateway.ws-orphan-error-guard');

/**
 * discord.js' gateway (@discordjs/ws) drops a socket's `error` handler when it destroys a shard
 * whose WebSocket is still connecting; if that socket then fails (a reset, a refused upgrade),
 * `ws` emits `error` with no listener and Node turns it into an uncaught exception that ends the
 * whole process — every other platform with it. Replacing a stalled connection, or shutting down,
 * can hit that window. This makes an `error` on a `ws` socket nobody listens to a reported event
 * instead of a crash; sockets with listeners behave exactly as before.
 *
 * It changes `ws` for the whole process, so it is installed once (the first Discord adapter does
 * it, with its `report`); later calls return false and change nothing.
 */
export function guardOrphanSocketErrors(report: (error: unknown) => void): boolean {
  const prototype = WebSocket.prototype as WebSocket & { [GUARDED]?: true };
  if (prototype[GUARDED] === true) return false;
  const original = prototype.emit;
  const guarded = function (this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error' && this.listenerCount('error') === 0) {
      try {
        report(args[0]);
      } catch {
        // Reporting must never become the crash it prevents.
      }
      return false;
    }
    return original.call(this, event, ...args);
  };
  Object.defineProperty(prototype, 'emit', { value: guarded, configurable: true, writable: true });
  Object.defineProperty(prototype, GUARDED, { value: true });
  return true;
}
