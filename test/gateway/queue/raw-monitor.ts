import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RawMonitor {
  /** Called with each command Redis reports (name first, then the arguments). */
  onCommand(listener: (args: string[]) => void): void;
  close(): void;
}

/**
 * Redis MONITOR over a plain socket. ioredis' `monitor()` switches its connection to monitor mode
 * one microtask after MONITOR's +OK, so the first lines, when they arrive in the same read as
 * that +OK (a busy Redis), hit its command queue and fail with "Command queue state error".
 */
export async function startRawMonitor(port = 6379, host = '127.0.0.1'): Promise<RawMonitor> {
  const socket: Socket = connect({ port, host });
  await once(socket, 'connect');
  const listeners: ((args: string[]) => void)[] = [];
  let buffered = '';
  let confirmed = false;
  let confirm: () => void = () => {};
  const ok = new Promise<void>((resolve) => {
    confirm = resolve;
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\r\n');
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!confirmed && line === '+OK') {
        confirmed = true;
        confirm();
      } else if (line.startsWith('+')) {
        const args = quotedArgs(line);
        for (const listener of listeners) listener(args);
      }
      end = buffered.indexOf('\r\n');
    }
  });
  socket.write('MONITOR\r\n');
  await ok;
  return {
    onCommand: (listener) => {
      listeners.push(listener);
    },
    close: () => socket.destroy(),
  };
}

/** The quoted arguments of a MONITOR line: `+1700000000.1 [0 127.0.0.1:5000] "evalsha" "ab…"`. */
function quotedArgs(line: string): string[] {
  const args: string[] = [];
  let index = line.indexOf('"', line.indexOf(']') + 1);
  while (index >= 0) {
    let value = '';
    index += 1;
    while (index < line.length && line[index] !== '"') {
      if (line[index] === '\\' && index + 1 < line.length) {
        const next = line[index + 1] as string;
        if (next === 'x') {
          value += String.fromCharCode(Number.parseInt(line.slice(index + 2, index + 4), 16));
          index += 4;
          continue;
        }
        value += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
        index += 2;
        continue;
      }
      value += line[index];
      index += 1;
    }
    args.push(value);
    index = line.indexOf('"', index + 1);
  }
  return args;
}
