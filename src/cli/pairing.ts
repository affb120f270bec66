import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { openGatewayStore } from '../app/open-gateway-store.js';
import type { Config } from '../config/config-schema.js';
import { createPairingService } from '../gateway/access/pairing-service.js';
import type { GatewayStore } from '../gateway/store/gateway-store.js';
import type { PairedUser, PairingCode, PairingStore } from '../gateway/store/pairing-store.js';
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './cli-io.js';

export interface PairingCliDeps {
  /** The gateway's store (`openStoreForCli`); the caller closes it. */
  readonly store: PairingStore;
  readonly logger: Logger;
  /** Epoch ms, for "expires in …"; defaults to Date.now. */
  readonly now?: () => number;
}

const USAGE = `usage:
  hermes-gateway pairing list [PLATFORM] [--json]    pending codes and paired users
  hermes-gateway pairing approve PLATFORM CODE       let the user behind a code in
  hermes-gateway pairing revoke PLATFORM USER_ID     remove a paired user
  hermes-gateway pairing clear-pending [PLATFORM]    drop pending codes
`;

/** Who the store records as the approver of a CLI approval. */
export const CLI_APPROVER = 'cli';

const PLATFORM_TOKEN = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Opens the gateway's store the way the gateway does: PostgreSQL with DATABASE_URL, else
 * `$HERMES_HOME/state.db` (safe while the gateway runs: WAL).
 */
export async function openStoreForCli(config: Config, logger: Logger): Promise<GatewayStore> {
  return (await openGatewayStore(config, logger)).store;
}

/** `hermes-gateway pairing list|approve|revoke|clear-pending …` */
export async function runPairing(argv: readonly string[], io: CliIo, deps: PairingCliDeps): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  let parsed: { positionals: string[]; json: boolean };
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    parsed = { positionals, json: values.json === true };
  } catch (error) {
    return usage(io, `pairing: ${(error as Error).message}`);
  }
  const { positionals, json } = parsed;
  if (json && sub !== 'list') return usage(io, `pairing ${sub ?? ''}: --json applies to list only`);
  const service = createPairingService({
    store: deps.store,
    logger: deps.logger,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  const now = deps.now ?? Date.now;

  switch (sub) {
    case 'list': {
      if (positionals.length > 1) return usage(io, 'pairing list: at most one PLATFORM');
      const platform = positionals[0] === undefined ? undefined : platformArg(positionals[0]);
      if (platform === null)
        return usage(io, `pairing list: '${clean(positionals[0] ?? '')}' is not a platform name`);
      const pending = await service.listPending(platform);
      const paired = await service.listPaired(platform);
      if (json) {
        io.stdout(
          `${JSON.stringify({ pending: pending.map(pendingJson), paired: paired.map(pairedJson) }, null, 2)}\n`,
        );
      } else {
        io.stdout(formatList(pending, paired, now()));
      }
      return EXIT_OK;
    }
    case 'approve': {
      if (positionals.length !== 2) return usage(io, 'pairing approve: needs PLATFORM and CODE');
      const [rawPlatform = '', code = ''] = positionals;
      const platform = platformArg(rawPlatform);
      if (platform === null)
        return usage(io, `pairing approve: '${clean(rawPlatform)}' is not a platform name`);
      const user = await service.approve(platform, code, CLI_APPROVER);
      if (user === undefined) {
        io.stderr(
          `No pending pairing code '${clean(code)}' on ${platform}: it is unknown, expired or already used.\n` +
            'Run `hermes-gateway pairing list` to see the pending codes.\n',
        );
        return EXIT_FAILURE;
      }
      io.stdout(
        `Approved ${platform} user ${describeUser(user.userId, user.userName)}: they can talk to the bot now.\n`,
      );
      return EXIT_OK;
    }
    case 'revoke': {
      if (positionals.length !== 2) return usage(io, 'pairing revoke: needs PLATFORM and USER_ID');
      const [rawPlatform = '', userId = ''] = positionals;
      const platform = platformArg(rawPlatform);
      if (platform === null)
        return usage(io, `pairing revoke: '${clean(rawPlatform)}' is not a platform name`);
      if (!(await service.revoke(platform, userId))) {
        io.stderr(
          `${platform} user ${clean(userId)} is not paired (allowlists in the configuration are separate).\n`,
        );
        return EXIT_FAILURE;
      }
      io.stdout(
        `Revoked ${platform} user ${clean(userId)}: their next message is ignored, or gets a new pairing code.\n`,
      );
      return EXIT_OK;
    }
    case 'clear-pending': {
      if (positionals.length > 1) return usage(io, 'pairing clear-pending: at most one PLATFORM');
      const platform = positionals[0] === undefined ? undefined : platformArg(positionals[0]);
      if (platform === null) {
        return usage(io, `pairing clear-pending: '${clean(positionals[0] ?? '')}' is not a platform name`);
      }
      const removed = await service.clearPending(platform);
      io.stdout(`Removed ${removed} pending pairing code${removed === 1 ? '' : 's'}.\n`);
      return EXIT_OK;
    }
    default:
      return usage(
        io,
        sub === undefined ? 'pairing: missing subcommand' : `pairing: unknown subcommand '${clean(sub)}'`,
      );
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`${message}\n${USAGE}`);
  return EXIT_USAGE;
}

/** The platform token, lower-cased; null when it cannot be one. */
function platformArg(value: string): string | null {
  const token = value.trim().toLowerCase();
  return PLATFORM_TOKEN.test(token) ? token : null;
}

/** User names come from chat platforms: keep control characters (and escape sequences) off the terminal. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function describeUser(userId: string, userName: string | undefined): string {
  return userName === undefined ? clean(userId) : `${clean(userId)} (${clean(userName)})`;
}

function pendingJson(code: PairingCode): Record<string, unknown> {
  return {
    platform: code.platform,
    code: code.code,
    userId: code.userId,
    userName: code.userName ?? null,
    createdAt: new Date(code.createdAt).toISOString(),
    expiresAt: new Date(code.expiresAt).toISOString(),
  };
}

function pairedJson(user: PairedUser): Record<string, unknown> {
  return {
    platform: user.platform,
    userId: user.userId,
    userName: user.userName ?? null,
    approvedBy: user.approvedBy,
    approvedAt: new Date(user.approvedAt).toISOString(),
  };
}

function formatList(pending: readonly PairingCode[], paired: readonly PairedUser[], now: number): string {
  let out = `Pending pairing codes (${pending.length}):\n`;
  out += table(
    ['PLATFORM', 'CODE', 'USER', 'EXPIRES'],
    pending.map((code) => [
      code.platform,
      code.code,
      describeUser(code.userId, code.userName),
      `in ${Math.max(1, Math.ceil((code.expiresAt - now) / 60_000))} min (${new Date(code.expiresAt).toISOString()})`,
    ]),
  );
  out += `\nPaired users (${paired.length}):\n`;
  out += table(
    ['PLATFORM', 'USER', 'APPROVED BY', 'APPROVED AT'],
    paired.map((user) => [
      user.platform,
      describeUser(user.userId, user.userName),
      clean(user.approvedBy),
      new Date(user.approvedAt).toISOString(),
    ]),
  );
  return out;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '  (none)\n';
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}\n`;
  return line(header) + rows.map(line).join('');
}
