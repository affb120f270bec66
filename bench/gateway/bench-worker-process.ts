import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { FAKE_MODEL } from './fake-model-answer.js';
import { REDIS_URL } from './redis-keys.js';

/**
 * `hermes-gateway worker` for the benches, run by `startWorkerProcess`: workers only, on the
 * HERMES_HOME of a bench gateway (argv: home, workdir, model base URL). Says `ready` over IPC once
 * its workers run; closes (letting running turns finish) on SIGTERM or when the parent goes away.
 */
const [home, workdir, modelBaseURL] = process.argv.slice(2);
if (home === undefined || workdir === undefined || modelBaseURL === undefined) {
  throw new Error('usage: bench-worker-process <home> <workdir> <model base URL>');
}
const config = loadConfig({
  home,
  env: {
    TERMINAL_CWD: workdir,
    OPENAI_BASE_URL: modelBaseURL,
    OPENAI_API_KEY: 'sk-bench',
    HERMES_MODEL: FAKE_MODEL,
    REDIS_URL,
  },
});
const gateway = await createGateway({
  config,
  logger: pino({ level: 'silent' }),
  baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
  builtinToolsDir: resolve(import.meta.dirname, '../../src/tools'),
  role: 'worker',
});
await gateway.start();
let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  void gateway.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('disconnect', stop);
process.send?.('ready');
