/**
 * What the `cronjob` tool needs, added to ToolServices by declaration merging. The composition
 * root provides the gateway's scheduled-task service; without it the tool is unavailable. Every
 * call acts on the chat of the session that makes it, never on a chat the model names.
 */

/** The chat a task belongs to. */
export interface CronjobChat {
  readonly platform: string;
  readonly chatType: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
}

/** A scheduled task as the tool shows it. */
export interface CronjobView {
  readonly id: string;
  readonly name: string | undefined;
  readonly prompt: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly deliver: 'origin' | 'home';
  readonly state: 'active' | 'paused' | 'done';
  readonly nextRunAt: number | undefined;
  readonly lastRunAt: number | undefined;
  readonly runCount: number;
  readonly delivery:
    | {
        readonly status: 'pending' | 'delivered' | 'failed';
        readonly error: string | undefined;
        readonly at: number;
      }
    | undefined;
}

export interface CronjobCreate {
  readonly chat: CronjobChat;
  readonly sessionKey: string;
  readonly userId: string;
  readonly userName?: string | undefined;
  readonly schedule: string;
  readonly prompt: string;
  readonly name?: string | undefined;
  readonly timezone?: string | undefined;
  readonly deliver?: 'origin' | 'home' | undefined;
}

export interface CronjobService {
  /** Throws HermesError `usage` with the reason when the schedule or prompt is refused. */
  create(request: CronjobCreate): Promise<CronjobView>;
  list(chat: CronjobChat): Promise<CronjobView[]>;
  pause(chat: CronjobChat, id: string): Promise<CronjobView>;
  resume(chat: CronjobChat, id: string): Promise<CronjobView>;
  remove(chat: CronjobChat, id: string): Promise<CronjobView>;
}

declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly cronjobs?: CronjobService;
  }
}
