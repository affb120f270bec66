import type { Logger } from 'pino';
import type { ApprovalGateController } from '../approval/create-approval-gate.js';
import type { Config } from '../config/config-schema.js';
import type { Toolsets } from '../registry/toolsets.js';
import type { AccessControl } from './access/create-access-control.js';
import type { CommandHandler } from './commands/create-command-handler.js';
import type { Delivery } from './delivery/create-delivery.js';
import type { ProgressMessage } from './delivery/progress-message.js';
import type { TypingKeeper } from './delivery/typing-keeper.js';
import type { EventBus } from './events/event-bus.js';
import type { OutboxSweepOptions } from './outbound/outbox-sweep.js';
import type { TurnQueue } from './queue/turn-queue.js';
import type { ActionPromptStore } from './store/action-prompt-store.js';
import type { InboundDedupeStore } from './store/ledger-store.js';
import type { OutboxStore } from './store/outbox-store.js';
import type { ParkedTurnStore } from './store/parked-turn-store.js';
import type { TurnRunner } from './turn/create-turn-runner.js';

/** Everything the chat control plane works with, passed in by the gateway composition. */
export interface ControlDeps {
  readonly config: Config;
  readonly logger: Logger;
  /** Prompts shown in chats, inbound dedupe, the outbox, and the parked turn behind a prompt. */
  readonly store: ActionPromptStore &
    InboundDedupeStore &
    OutboxStore &
    Pick<ParkedTurnStore, 'getParkedTurn' | 'listParkedTurns'>;
  readonly queue: TurnQueue;
  readonly bus: EventBus;
  readonly runner: Pick<TurnRunner, 'resume'>;
  readonly approvals: ApprovalGateController;
  readonly access: AccessControl;
  readonly commands: CommandHandler;
  readonly delivery: Delivery;
  readonly toolsets: Pick<Toolsets, 'has'>;
  readonly now: () => number;
  /** Pacing of the outbox sweep (answers whose live event was missed); defaults suit production. */
  readonly outbox?: OutboxSweepOptions;
  /** Metrics hooks (main wires them to prom-client). */
  readonly observer?: {
    inbound?(platform: string, status: string): void;
    deliveryFailed?(platform: string): void;
    /** An answer or failure notice of a turn was sent, or could not be (scheduled tasks record it). */
    answerDelivery?(report: AnswerDeliveryReport): void | Promise<void>;
  };
}

/** What a chat shows while one of its turns runs: typing, and the tool-progress message. */
export interface ChatActivity {
  typing: TypingKeeper | undefined;
  progress: ProgressMessage | undefined;
  turnId: string | undefined;
}

/** How the delivery of one turn's answer (or failure notice) went, live or from the outbox. */
export interface AnswerDeliveryReport {
  readonly sessionKey: string;
  readonly turnId: string;
  /** `final`: the answer; `failed`: the notice of a failed turn (its message in `failure`). */
  readonly kind: 'final' | 'failed';
  readonly delivered: boolean;
  /** Why it could not be sent. */
  readonly error?: string | undefined;
  readonly failure?: string | undefined;
}
