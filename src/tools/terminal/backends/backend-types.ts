import type { ExecBackend } from '../../../approval/approval-types.js';
import type { Config } from '../../../config/config-schema.js';
import type { SpawnPlan } from '../spawn-group.js';

export type TerminalConfig = Config['terminal'];

export interface BackendCheck {
  readonly ok: boolean;
  readonly reason?: string;
}

/** What a backend may need to know about the gateway it runs commands for. */
export interface BackendHost {
  /** HERMES_HOME, absolute: the sandbox never shows it. */
  readonly hermesHome: string;
  /** Owner of the backend's cached probes (the tool services). */
  readonly owner: object;
}

export interface PlanInput {
  /** The command to run, after the sudo rewrite. */
  readonly command: string;
  /** From `resolveWorkdir`. */
  readonly workdir: string | undefined;
  /** Allowlisted environment for the program we start (bash, bwrap, docker or ssh). */
  readonly env: Readonly<Record<string, string>>;
  /** Names in `env` that are there by `terminal.env_passthrough` (docker and ssh forward them). */
  readonly passedThrough?: readonly string[];
  readonly input: string | undefined;
  readonly terminal: TerminalConfig;
  /** The session working directory (the sandbox makes it writable). */
  readonly sessionCwd?: string;
  readonly host?: BackendHost;
}

/** One way of running a command. Every backend starts a local program we can kill as a group. */
export interface TerminalBackend {
  readonly name: ExecBackend;
  /**
   * Variables the backend's client program itself needs (docker: DOCKER_HOST…, ssh:
   * SSH_AUTH_SOCK); they reach that program, never the command.
   */
  readonly clientEnvNames?: readonly string[];
  /** Whether the backend can run commands now; `reason` says what to fix when not. */
  check(terminal: TerminalConfig, env: Readonly<Record<string, string>>, host?: BackendHost): BackendCheck;
  /**
   * The directory the command runs in (the approval is bound to it). `undefined` means the
   * backend's default (container WORKDIR, remote home). Throws on an unusable value.
   */
  resolveWorkdir(workdir: string | undefined, ctxCwd: string, terminal: TerminalConfig): string | undefined;
  plan(input: PlanInput): SpawnPlan;
}
