import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApprovalGate } from '../../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../../src/approval/memory-approval-store.js';
import type { Config } from '../../../src/config/config-schema.js';
import { silentLogger, testConfig } from '../../helpers/test-config.js';

/** Loads a real config for `home` after writing `yaml` as its config.yaml. */
export function configWith(home: string, yaml: string, env: Record<string, string> = {}): Config {
  writeFileSync(join(home, 'config.yaml'), yaml);
  return testConfig(home, env);
}

/** The real approval gate over an in-memory store. */
export function realGate(config: Config) {
  return createApprovalGate({ config, store: createMemoryApprovalStore(), logger: silentLogger });
}
