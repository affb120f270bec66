import { createBenchGateway } from './start-bench-gateway.js';

/**
 * `hermes-gateway worker` for the benches, run by `startWorkerProcess`: workers only, on the
 * HERMES_HOME of a bench gateway (argv: home, workdir, model base URL). Says `ready` over IPC once
 * its workers run; closes (letting running turns finish) on SIGTERM or when the parent goes away.
 */
const [home, workdir, modelBaseURL] = process.argv.slice(2);
if (home === undefined || workdir === undefined || modelBaseURL === undefined) {
  throw new Error('usage: bench-worker-process <home> <workdir> <model base URL>');
}
const gateway = await createBenchGateway({ home, workdir, mode: 'bullmq', modelBaseURL, role: 'worker' });
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
