import {
  type APIMessage,
  InteractionResponseType,
  MessageFlags,
  type REST,
  type RESTPostAPIWebhookWithTokenJSONBody,
  Routes,
} from 'discord.js';

/** Interaction tokens work for 15 minutes; stop using one a minute early. */
const TOKEN_LIFETIME_MS = 14 * 60_000;
const MAX_PENDING = 1_000;

interface Pending {
  readonly id: string;
  readonly token: string;
  readonly applicationId: string;
  readonly createdAt: number;
  /** A slash command's deferred reply still shows "thinking…" until the first answer fills it. */
  originalFilled: boolean;
}

export interface InteractionRef {
  readonly id: string;
  readonly token: string;
  readonly applicationId: string;
}

/**
 * The interactions the adapter is answering: acknowledgements (sent at once, before any work),
 * answers to slash commands through the interaction (the deferred reply first, then follow-ups),
 * and ephemeral notices to whoever pressed a button. Tokens stay in this map only, never in an
 * inbound event, and are forgotten after 14 minutes.
 */
export class InteractionReplies {
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly rest: REST,
    private readonly now: () => number,
  ) {}

  #sweep(): void {
    const cutoff = this.now() - TOKEN_LIFETIME_MS;
    for (const [id, entry] of this.#pending) {
      if (entry.createdAt >= cutoff && this.#pending.size <= MAX_PENDING) break;
      this.#pending.delete(id);
    }
  }

  #live(id: string): Pending | undefined {
    this.#sweep();
    const entry = this.#pending.get(id);
    if (entry !== undefined && entry.createdAt < this.now() - TOKEN_LIFETIME_MS) {
      this.#pending.delete(id);
      return undefined;
    }
    return entry;
  }

  /**
   * Acknowledges an interaction within Discord's 3 seconds: `update` for a button (the message
   * stays as it is until the gateway edits it), `reply` for a slash command ("thinking…", public
   * unless `ephemeral`). Remembers the interaction for the answers that follow.
   */
  async acknowledge(ref: InteractionRef, kind: 'update' | 'reply', ephemeral = false): Promise<void> {
    // The same interaction again (a resumed session replays events): it was answered already.
    if (this.#pending.has(ref.id)) return;
    this.#pending.set(ref.id, { ...ref, createdAt: this.now(), originalFilled: kind === 'update' });
    await this.rest.post(Routes.interactionCallback(ref.id, ref.token), {
      auth: false,
      body:
        kind === 'update'
          ? { type: InteractionResponseType.DeferredMessageUpdate }
          : {
              type: InteractionResponseType.DeferredChannelMessageWithSource,
              ...(ephemeral ? { data: { flags: MessageFlags.Ephemeral } } : {}),
            },
    });
  }

  /** True while the interaction can still be answered through (its token is fresh). */
  has(id: string): boolean {
    return this.#live(id) !== undefined;
  }

  /**
   * Posts an answer to a slash command through its interaction: the first fills the deferred
   * reply, later ones are follow-ups. Undefined when the interaction is unknown or too old.
   */
  async answer(id: string, body: RESTPostAPIWebhookWithTokenJSONBody): Promise<APIMessage | undefined> {
    const entry = this.#live(id);
    if (entry === undefined) return undefined;
    if (!entry.originalFilled) {
      const message = (await this.rest.patch(
        Routes.webhookMessage(entry.applicationId, entry.token, '@original'),
        { auth: false, body },
      )) as APIMessage;
      entry.originalFilled = true;
      return message;
    }
    return (await this.rest.post(Routes.webhook(entry.applicationId, entry.token), {
      auth: false,
      body,
      query: new URLSearchParams({ wait: 'true' }),
    })) as APIMessage;
  }

  /** Whether a slash command's deferred reply is still waiting for its first answer. */
  awaitingAnswer(id: string): boolean {
    const entry = this.#live(id);
    return entry !== undefined && !entry.originalFilled;
  }

  /** Removes a slash command's deferred reply ("thinking…") that no answer filled. */
  async discard(id: string): Promise<void> {
    const entry = this.#live(id);
    if (entry === undefined || entry.originalFilled) return;
    entry.originalFilled = true;
    await this.rest.delete(Routes.webhookMessage(entry.applicationId, entry.token, '@original'), {
      auth: false,
    });
  }

  /** A message only the clicker (or the command's user) sees. */
  async notice(id: string, text: string): Promise<boolean> {
    const entry = this.#live(id);
    if (entry === undefined) return false;
    await this.rest.post(Routes.webhook(entry.applicationId, entry.token), {
      auth: false,
      body: { content: text, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
    });
    return true;
  }

  forget(id: string): void {
    this.#pending.delete(id);
  }
}
