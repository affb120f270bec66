import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
  type SqliteGatewayStoreOptions,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import { silentLogger } from '../../helpers/test-config.js';

/** A clock the test moves by hand. */
export interface ManualClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function manualClock(start = 1_700_000_000_000): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}

/**
 * Temp directories and stores made by one test file; `cleanup()` (in afterEach) closes every
 * store and removes every directory.
 */
export function storeFixture() {
  const dirs: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  return {
    dir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'hermes-store-'));
      dirs.push(dir);
      return dir;
    },
    open(
      path: string,
      clock: ManualClock = manualClock(),
      extra: Partial<SqliteGatewayStoreOptions> = {},
    ): SqliteGatewayStore {
      const store = createSqliteGatewayStore({ path, logger: silentLogger, now: clock.now, ...extra });
      closers.push(() => store.close());
      return store;
    },
    /** A new store in a new directory. */
    fresh(clock: ManualClock = manualClock()): SqliteGatewayStore {
      return this.open(join(this.dir(), 'state.db'), clock);
    },
    onCleanup(close: () => Promise<void>): void {
      closers.push(close);
    },
    async cleanup(): Promise<void> {
      for (const close of closers.splice(0).reverse()) await close();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
