import { type FSWatcher, watch } from 'node:fs';

export interface MarkerWatch {
  /** Resolves with `clock()` at the moment the file `name` shows up in the directory. */
  next(name: string, timeoutMs: number): Promise<number>;
  close(): void;
}

/**
 * Watches one directory (inotify through `fs.watch`) for files created by the approved
 * commands. Register with `next` before the file can appear.
 */
export function watchMarkers(dir: string, clock: () => number): MarkerWatch {
  const waiting = new Map<string, (at: number) => void>();
  const watcher: FSWatcher = watch(dir, (_event, filename) => {
    if (filename === null) return;
    const done = waiting.get(filename);
    if (done === undefined) return;
    waiting.delete(filename);
    done(clock());
  });
  return {
    next(name, timeoutMs) {
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(name);
          reject(new Error(`marker ${name} did not appear within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(name, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close() {
      watcher.close();
    },
  };
}
