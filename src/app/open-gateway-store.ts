import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';
import type { GatewayStore } from '../gateway/store/gateway-store.js';
import { createPgGatewayStore, type PgGatewayStore } from '../gateway/store/pg-gateway-store.js';
import { createSqliteGatewayStore, type SqliteGatewayStore } from '../gateway/store/sqlite-gateway-store.js';

/** The gateway store the configuration asks for, and where it lives. */
export type OpenedGatewayStore =
  | { readonly kind: 'sqlite'; readonly store: SqliteGatewayStore; readonly location: string }
  | { readonly kind: 'postgres'; readonly store: PgGatewayStore; readonly location: string };

/**
 * PostgreSQL when `DATABASE_URL` (database.url) is set — migrated before this resolves — else
 * SQLite at `$HERMES_HOME/state.db`, the zero-setup default. Every caller (gateway, worker, CLI)
 * opens the store through here, so they all see the same state.
 */
export async function openGatewayStore(
  config: Config,
  logger: Logger,
  options: { readonly now?: () => number } = {},
): Promise<OpenedGatewayStore> {
  const url = config.database.url;
  if (url !== undefined) {
    const store = await createPgGatewayStore({
      url,
      logger,
      schema: config.database.schema,
      poolMax: config.database.pool_max,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    return { kind: 'postgres', store, location: `${store.location} (schema ${store.schema})` };
  }
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const path = join(config.home, 'state.db');
  const store = createSqliteGatewayStore({
    path,
    logger,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return { kind: 'sqlite', store, location: path };
}

export type { GatewayStore };
