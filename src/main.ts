import type { CodeSource } from './cli/code-source.js';
import { runCli } from './cli.js';
import { loadConfig } from './config/load-config.js';
import { closeModelFetchAgent } from './lib/create-model-fetch.js';

/**
 * The composition root: the only module that reads process.env and process.argv or listens for
 * signals. Everything else gets what it needs passed in. `code` is what bin/hermes-gateway chose to
 * run (the compiled build, or the sources and why); the banner and `doctor` show it.
 */
export async function main(code: CodeSource): Promise<number> {
  const env = process.env;
  // `hermes-gateway tools list | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const stopSignal = () =>
    new Promise<string>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        process.once(signal, () => process.exit(130));
        resolve(signal);
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    });
  try {
    return await runCli(
      process.argv.slice(2),
      {
        stdin: process.stdin,
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        isTty: process.stdout.isTTY === true,
      },
      { loadConfig: () => loadConfig({ env }), baseEnv: env, stopSignal, code },
    );
  } finally {
    // The model transport's connection pool is per process: closed once everything that used it is.
    await closeModelFetchAgent();
  }
}
