import type { Logger } from 'pino';
import type { ApprovalGateController } from '../../approval/create-approval-gate.js';
import type { Config } from '../../config/config-schema.js';
import type { ChatRef, Sender } from '../../platforms/adapter.js';
import type { Toolsets } from '../../registry/toolsets.js';
import type { InboxItem, TurnQueue } from '../queue/turn-queue.js';
import type { HomeChannelStore } from '../store/home-channel-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { TranscriptStore } from '../store/transcript-store.js';
import type { CommandName } from './command-table.js';

/** The approval decision a parked turn is resumed with (informational: the gate's record wins). */
export type ResumeChoice = 'once' | 'session' | 'always' | 'deny';

/** Who answered a pairing code, or undefined when the code is unknown or expired. */
export type PairingApproval = { readonly userId: string; readonly userName?: string | undefined } | undefined;

/** What the command handler needs, as narrow slices so tests build them from real parts. */
export interface CommandHandlerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: Pick<
    SessionStore & TranscriptStore & HomeChannelStore,
    | 'getOrCreateSession'
    | 'rotateSession'
    | 'updateSession'
    | 'listMessages'
    | 'countMessages'
    | 'setHomeChannel'
    | 'getHomeChannel'
  >;
  readonly queue: Pick<TurnQueue, 'kind' | 'submit' | 'interrupt' | 'activeTurns'>;
  readonly approvals: Pick<
    ApprovalGateController,
    'listPending' | 'decide' | 'cancel' | 'setSessionYolo' | 'isSessionYolo' | 'clearSession'
  >;
  /**
   * Continues the turn parked on an approval request once its decision is recorded (the gateway
   * finds the parked turn and calls `runner.resume`). Called after every recorded decision,
   * cancellations by /stop and /new included.
   */
  readonly resumeTurn: (input: {
    readonly requestId: string;
    readonly decision: ResumeChoice;
  }) => Promise<void>;
  readonly toolsets: Pick<Toolsets, 'names' | 'has' | 'resolve' | 'resolveSelection'>;
  /** Approves a pending pairing code (`/pair`); without it `/pair` says pairing is not available. */
  readonly approvePairing?: (platform: string, code: string, approvedBy: string) => Promise<PairingApproval>;
  /**
   * Whether the session has a turn running, for `/status`. Without it `/status` shows the number
   * of turns running in this process instead.
   */
  readonly isTurnRunning?: (sessionKey: string) => Promise<boolean>;
  /** Commands non-admins may run besides /help and /whoami; default `config.gateway.user_commands`. */
  readonly userCommands?: readonly string[];
  /** Epoch milliseconds. */
  readonly now?: () => number;
  /**
   * Reconnects the MCP servers (`/reload-mcp`); resolves to one line per server (`github:
   * connected (stdio), 12 tools`). Without it `/reload-mcp` says MCP is not available.
   */
  readonly reloadMcp?: () => Promise<readonly string[]>;
}

/** One command to handle, from an authorised sender (ingress has already checked access). */
export interface CommandInput {
  readonly platform: string;
  readonly chat: ChatRef;
  readonly sender: Sender;
  readonly isAdmin: boolean;
  readonly sessionKey: string;
  /** As typed (without prefix) or canonical: aliases and unambiguous prefixes are resolved here. */
  readonly name: string;
  readonly args: string;
  /** The platform's command prefix, for the texts; default `/`. */
  readonly prefix?: string;
  /**
   * Builds the `message` inbox item `/queue` submits (same origin and event id as the command's
   * message). Without it `/queue` answers that it is not available here.
   */
  readonly makeItem?: (text: string) => InboxItem;
}

export interface CommandResult {
  /** Texts to send back to the chat, in order (usually one). */
  readonly replies: string[];
}

/** What one command implementation gets. */
export interface CommandRun {
  readonly deps: CommandHandlerDeps;
  readonly input: CommandInput;
  readonly name: CommandName;
  readonly args: string;
  /** Command prefix for texts (`/`). */
  readonly p: string;
  readonly now: () => number;
  /** Commands the sender may run, in table order. */
  readonly allowed: readonly CommandName[];
}

export type CommandImpl = (run: CommandRun) => Promise<string[]>;
