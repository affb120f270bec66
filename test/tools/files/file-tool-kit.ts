import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { createApprovalGate } from '../../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../../src/approval/memory-approval-store.js';
import type { Config } from '../../../src/config/config-schema.js';
import {
  createResumableApprovalGate,
  type ResumableApprovalGate,
} from '../../../src/gateway/turn/resumable-approval-gate.js';
import { ToolPause } from '../../../src/registry/tool-pause.js';
import type { ToolServices } from '../../../src/registry/tool-services.js';
import type { AnyParams, ToolContext, ToolDefinition } from '../../../src/registry/tool-types.js';
import type { ApprovalPausePayload } from '../../../src/tools/terminal/gate-command.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../../helpers/test-config.js';

/**
 * A temp HERMES_HOME, a separate temp workspace used as the task's cwd, and a temp user home:
 * HOME points at it while the kit lives (os.homedir() follows HOME), so tests can create
 * ~/.zshenv or ~/.ssh without touching the real home.
 */
export interface FileToolKit {
  readonly home: string;
  readonly cwd: string;
  /** The user's home directory for this test (HOME). */
  readonly userHome: string;
  readonly config: Config;
  ctx(overrides?: Partial<Omit<ToolContext, 'services'>> & { services?: Partial<ToolServices> }): ToolContext;
  /** Writes a file under cwd (parents created) and returns its absolute path. */
  put(relative: string, content: string | Uint8Array): string;
  /** Writes a file under the user home (parents created) and returns its absolute path. */
  putHome(relative: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function makeFileToolKit(configYaml?: string): FileToolKit {
  const home = makeTempHome('hermes-files-home-');
  const work = makeTempHome('hermes-files-cwd-');
  const user = makeTempHome('hermes-files-user-');
  const previousHome = process.env['HOME'];
  process.env['HOME'] = user.home;
  if (configYaml !== undefined) writeFileSync(join(home.home, 'config.yaml'), configYaml);
  const config = testConfig(home.home);
  const putUnder = (root: string, relative: string, content: string | Uint8Array): string => {
    const path = join(root, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  return {
    home: home.home,
    cwd: work.home,
    userHome: user.home,
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
    put: (relative, content) => putUnder(work.home, relative, content),
    putHome: (relative, content) => putUnder(user.home, relative, content),
    cleanup: () => {
      if (previousHome === undefined) delete process.env['HOME'];
      else process.env['HOME'] = previousHome;
      work.cleanup();
      home.cleanup();
      user.cleanup();
    },
  };
}

/** The real approval gate (in-memory store) behind the resumable wrapper the runner uses. */
export function fileGate(config: Config): ResumableApprovalGate {
  return createResumableApprovalGate(
    createApprovalGate({ config, store: createMemoryApprovalStore(), logger: silentLogger }),
  );
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

/** Runs a call expected to park on an approval and returns the request it parked with. */
export async function parked(promise: Promise<unknown>): Promise<ApprovalPausePayload> {
  const error = await failure(promise);
  if (!(error instanceof ToolPause) || error.reason !== 'approval') {
    throw new Error(`expected an approval pause, got ${String(error)}`);
  }
  return error.payload as ApprovalPausePayload;
}
