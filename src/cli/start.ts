import type { ToolRuntime } from '../runtime/create-tool-runtime.js';
import { type CliIo, EXIT_OK } from './cli-io.js';

/**
 * `hermes-gateway start`. This build runs the tool runtime only: tools discovered and checked,
 * the approval gate ready. The HTTP server, queue and platforms arrive with the gateway core;
 * until then start reports what is ready and stays up until SIGTERM/SIGINT.
 */
export async function runStart(
  io: CliIo,
  runtime: ToolRuntime,
  stopSignal: () => Promise<string>,
): Promise<number> {
  const { config, logger, registry, discovery } = runtime;
  const status = registry.status();
  const available = status.filter((s) => s.available).map((s) => s.name);
  const unavailable = status.filter((s) => !s.available);
  logger.info(
    {
      home: config.home,
      model: config.model.name ?? null,
      queue: config.redis.url === undefined ? 'embedded' : 'redis',
      approvals: config.approvals.mode,
      tools: available,
      unavailable: unavailable.map((s) => ({ name: s.name, reason: s.reason })),
      discoveryFailures: discovery.failures,
    },
    'hermes-gateway tool runtime ready (HTTP server and platforms are not part of this build yet)',
  );
  if (io.isTty) {
    io.stdout(
      [
        '',
        'hermes-gateway — tool runtime',
        `  home:      ${config.home}`,
        `  model:     ${config.model.name ?? 'not configured (set HERMES_MODEL)'}`,
        `  approvals: ${config.approvals.mode}${config.approvals.yolo ? ' (yolo)' : ''}`,
        `  tools:     ${available.length} available, ${unavailable.length} unavailable (see: hermes-gateway tools list)`,
        '  note:      the HTTP server and chat platforms are not in this build yet; Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  }
  const signal = await stopSignal();
  logger.info({ signal }, 'stopping');
  return EXIT_OK;
}
