import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import type { Config } from '../../../src/config/config-schema.js';
import type { ToolServices } from '../../../src/registry/tool-services.js';
import type { AnyParams, ToolContext, ToolDefinition } from '../../../src/registry/tool-types.js';
import { makeTempHome, testConfig, testServices } from '../../helpers/test-config.js';

/** A temp HERMES_HOME and a separate temp workspace used as the task's cwd. */
export interface FileToolKit {
  readonly home: string;
  readonly cwd: string;
  readonly config: Config;
  ctx(overrides?: Partial<Omit<ToolContext, 'services'>> & { services?: Partial<ToolServices> }): ToolContext;
  /** Writes a file under cwd (parents created) and returns its absolute path. */
  put(relative: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function makeFileToolKit(configYaml?: string): FileToolKit {
  const home = makeTempHome('hermes-files-home-');
  const work = makeTempHome('hermes-files-cwd-');
  if (configYaml !== undefined) writeFileSync(join(home.home, 'config.yaml'), configYaml);
  const config = testConfig(home.home);
  return {
    home: home.home,
    cwd: work.home,
    config,
    ctx: (overrides = {}) => {
      const { services, ...rest } = overrides;
      return {
        signal: new AbortController().signal,
        sessionKey: 'agent:main:test:dm:1',
        taskId: 'task-1',
        cwd: work.home,
        userId: undefined,
        platform: undefined,
        unattended: false,
        toolCallId: undefined,
        ...rest,
        services: testServices(config, services),
      };
    },
    put: (relative, content) => {
      const path = join(work.home, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => {
      work.cleanup();
      home.cleanup();
    },
  };
}

/** Calls a tool's handler the way the registry would: arguments parsed by its schema first. */
export async function callTool<P extends AnyParams>(
  tool: ToolDefinition<P>,
  args: z.input<P>,
  ctx: ToolContext,
): Promise<unknown> {
  return await tool.handler(tool.parameters.parse(args), ctx);
}

/** Runs a call expected to fail and returns the error, so tests can check its code and text. */
export async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the call to fail, but it succeeded');
}
