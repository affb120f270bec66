import type { Logger } from 'pino';
import { createGateway, type GatewayRole } from '../app/create-gateway.js';
import type { Config } from '../config/config-schema.js';
import { type CliIo, EXIT_OK } from './cli-io.js';
import { type CodeSource, codeSourceText } from './code-source.js';
import { listenAddressText } from './listen-address-text.js';

export interface StartDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly builtinToolsDir: string;
  /** Resolves on the first SIGTERM/SIGINT (a second one exits at once: main.ts). */
  readonly stopSignal: () => Promise<string>;
  /** What bin/hermes-gateway runs: the compiled build, or the sources and why. */
  readonly code: CodeSource;
}

/** `hermes-gateway start` (role gateway) and `hermes-gateway worker` (role worker). */
export async function runStart(io: CliIo, deps: StartDeps, role: GatewayRole): Promise<number> {
  const { config, logger } = deps;
  // The gateway builds every configured platform of the list (src/app/platforms.ts); a worker none.
  const gateway = await createGateway({
    config,
    logger,
    baseEnv: deps.baseEnv,
    builtinToolsDir: deps.builtinToolsDir,
    role,
  });
  let address: string | undefined;
  try {
    address = await gateway.start();
  } catch (error) {
    await gateway.close();
    throw error;
  }
  const status = gateway.runtime.registry.status();
  const available = status.filter((s) => s.available).map((s) => s.name);
  const missing = gateway.unavailableReason();
  const platforms = gateway.platforms;
  logger.info(
    {
      role,
      http: address ?? null,
      ...(address !== undefined ? { listen: `${config.http.host}:${new URL(address).port}` } : {}),
      platforms,
      queue: gateway.queue.kind,
      store: gateway.storeLocation,
      model: config.model.name ?? null,
      approvals: config.approvals.mode,
      tools: available,
      unavailableTools: status.filter((s) => !s.available).map((s) => ({ name: s.name, reason: s.reason })),
      discoveryFailures: gateway.runtime.discovery.failures,
      code: codeSourceText(deps.code),
      ...(missing !== undefined ? { notReady: missing } : {}),
    },
    role === 'gateway' ? 'hermes-gateway started' : 'hermes-gateway worker started',
  );
  if (io.isTty) {
    io.stdout(
      [
        '',
        `hermes-gateway ${role === 'gateway' ? '' : 'worker '}is running`,
        ...(address !== undefined ? [`  http:      ${listenAddressText(config.http.host, address)}`] : []),
        `  platforms: ${platforms.length > 0 ? platforms.join(', ') : 'none'}`,
        `  queue:     ${gateway.queue.kind}${gateway.queue.kind === 'embedded' ? ' (set REDIS_URL to scale out)' : ''}`,
        `  store:     ${gateway.storeLocation}${gateway.storeKind === 'sqlite' ? ' (set DATABASE_URL to share state across machines)' : ''}`,
        `  model:     ${config.model.name ?? 'NOT CONFIGURED — set HERMES_MODEL and OPENAI_BASE_URL/OPENAI_API_KEY'}`,
        `  tools:     ${available.length} available (hermes-gateway tools list)`,
        `  code:      ${codeSourceText(deps.code)}`,
        '  stop:      Ctrl-C',
        '',
      ].join('\n'),
    );
  }
  const signal = await deps.stopSignal();
  logger.info({ signal }, 'shutting down: no new work, letting running turns finish');
  await gateway.close();
  logger.info('stopped');
  return EXIT_OK;
}
