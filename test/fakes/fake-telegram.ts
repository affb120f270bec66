import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  editMessageReplyMarkup,
  editMessageText,
  fail,
  type MessageStore,
  type MethodResult,
  ok,
  sendMessage,
} from './fake-telegram/fake-methods.js';
import {
  type Ack,
  FailurePlan,
  type FakeFailure,
  type FakeMessage,
  type RecordedCall,
} from './fake-telegram/fake-state.js';
import { FakeUpdateQueue } from './fake-telegram/fake-update-queue.js';
import {
  type ClickInput,
  callbackQuery,
  type FakeUser,
  type TextInput,
  textMessage,
  userObject,
} from './fake-telegram/fake-updates.js';

export type { Ack, ClickInput, FakeFailure, FakeMessage, FakeUser, RecordedCall, TextInput };

export interface FakeTelegram {
  readonly apiRoot: string;
  readonly token: string;
  readonly bot: FakeUser;
  readonly calls: RecordedCall[];
  callsOf(method: string): RecordedCall[];
  messages(chatId?: number): FakeMessage[];
  message(messageId: number): FakeMessage | undefined;
  readonly webhook: { url: string; secret: string | undefined } | undefined;
  /** Queues (or, with a webhook set, posts) an update; returns its update_id. */
  pushUpdate(update: Record<string, unknown>, updateId?: number): number;
  sendText(input: TextInput): number;
  click(input: ClickInput): number;
  /** The callback_query id of a click (its answerCallbackQuery calls carry it). */
  callbackQueryId(updateId: number): string | undefined;
  /** How attempt `attempt` (1-based) of an update's delivery ended. */
  outcome(updateId: number, attempt?: number): Promise<Ack>;
  attempts(updateId: number): number;
  /** Delivers an update again: a webhook POST, or (polling) queues it again although confirmed. */
  redeliver(updateId: number): void;
  failNext(method: string, failure: FakeFailure): void;
  clearFailures(): void;
  /**
   * Calls other than getUpdates still being handled (a delayed one finishes — and stores its
   * message — even when the caller has gone meanwhile, as Telegram does).
   */
  pending(): number;
  block(chatId: number): void;
  addFile(bytes: Buffer, path: string): { fileId: string; fileUniqueId: string };
  readonly commands: { command: string; description: string }[] | undefined;
  close(): Promise<void>;
}

const BOT: FakeUser = { id: 7_000_001, first_name: 'Hermes', username: 'hermes_test_bot', is_bot: true };

/**
 * A fake Telegram Bot API on 127.0.0.1 that real grammY talks to through `apiRoot`. getUpdates
 * long-polls and follows Telegram's offset rule (an offset confirms every update below it); with
 * a webhook set, updates are POSTed with the secret header and kept until a 2xx answer.
 */
export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456789:AAFakeTokenForTestsOnly_x1y2z3';
  const calls: RecordedCall[] = [];
  const updates = new FakeUpdateQueue();
  const failures = new FailurePlan();
  const files = new Map<string, { bytes: Buffer; path: string; uniqueId: string }>();
  const callbacks = new Map<string, boolean>();
  const clicks = new Map<number, string>();
  const sockets = new Set<Socket>();
  let inFlight = 0;
  /** Results carried out but never answered (`dropAfterAccept`). */
  const dropped = new WeakSet<MethodResult>();
  let commands: { command: string; description: string }[] | undefined;
  let messageCounter = 500;
  let callbackCounter = 0;
  const store: MessageStore = {
    bot: BOT,
    messages: new Map(),
    blocked: new Set(),
    nextMessageId: () => {
      messageCounter += 1;
      return messageCounter;
    },
  };

  async function call(
    method: string,
    payload: Record<string, unknown>,
    gone: AbortSignal,
  ): Promise<MethodResult> {
    calls.push({ method, payload });
    const failure = failures.take(method, payload);
    if (failure?.delayMs !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
      return perform(method, payload, gone);
    }
    if (failure?.dropAfterAccept === true) {
      const result = await perform(method, payload, gone);
      dropped.add(result);
      return result;
    }
    if (failure !== undefined) {
      return {
        ok: false,
        error_code: failure.code,
        description: failure.description,
        ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}),
      } as MethodResult;
    }
    return perform(method, payload, gone);
  }

  async function perform(
    method: string,
    payload: Record<string, unknown>,
    gone: AbortSignal,
  ): Promise<MethodResult> {
    switch (method) {
      case 'getMe':
        return ok({
          ...userObject(BOT),
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'deleteWebhook':
        updates.setWebhook(undefined);
        return ok(true);
      case 'setWebhook':
        updates.setWebhook({
          url: String(payload['url']),
          secret: typeof payload['secret_token'] === 'string' ? payload['secret_token'] : undefined,
        });
        return ok(true);
      case 'getWebhookInfo':
        return ok({
          url: updates.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: updates.size,
        });
      case 'getUpdates':
        return updates.getUpdates(payload, gone);
      case 'sendMessage':
        return sendMessage(store, payload);
      case 'editMessageText':
        return editMessageText(store, payload);
      case 'editMessageReplyMarkup':
        return editMessageReplyMarkup(store, payload);
      case 'sendChatAction':
        return ok(true);
      case 'answerCallbackQuery': {
        const id = String(payload['callback_query_id']);
        if (callbacks.get(id) !== false)
          return fail(
            400,
            'Bad Request: query is too old and response timeout expired or query ID is invalid',
          );
        callbacks.set(id, true);
        return ok(true);
      }
      case 'setMyCommands':
        commands = (payload['commands'] as { command: string; description: string }[]) ?? [];
        return ok(true);
      case 'getMyCommands':
        return ok(commands ?? []);
      case 'getFile': {
        const file = files.get(String(payload['file_id']));
        if (file === undefined) return fail(400, 'Bad Request: invalid file_id');
        if (file.bytes.length > 20 * 1_048_576) return fail(400, 'Bad Request: file is too big');
        return ok({
          file_id: payload['file_id'],
          file_unique_id: file.uniqueId,
          file_size: file.bytes.length,
          file_path: file.path,
        });
      }
      default:
        return fail(404, 'Not Found: method not found');
    }
  }

  async function answer(url: URL, text: string, gone: AbortSignal): Promise<MethodResult> {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (match === null) return fail(404, 'Not Found');
    if (match[1] !== token) return fail(401, 'Unauthorized');
    let payload: Record<string, unknown> = Object.fromEntries(url.searchParams);
    try {
      if (text !== '') payload = { ...payload, ...(JSON.parse(text) as Record<string, unknown>) };
    } catch {
      return fail(400, 'Bad Request: body is not JSON');
    }
    const method = match[2] ?? '';
    if (method === 'getUpdates') return call(method, payload, gone);
    inFlight += 1;
    try {
      return await call(method, payload, gone);
    } finally {
      inFlight -= 1;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch !== null) {
      const file = [...files.values()].find((f) => f.path === fileMatch[2]);
      if (fileMatch[1] !== token || file === undefined) {
        res.writeHead(404).end('Not Found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
      res.end(file.bytes);
      return;
    }
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) gone.abort();
    });
    const result = await answer(url, Buffer.concat(chunks).toString('utf8'), gone.signal);
    if (res.destroyed || gone.signal.aborted) return;
    if (dropped.delete(result)) {
      res.socket?.destroy();
      return;
    }
    const status = result.ok ? 200 : result.error_code;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(result));
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const pushUpdate = (update: Record<string, unknown>, updateId?: number) => updates.push(update, updateId);

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    bot: BOT,
    calls,
    callsOf: (method) => calls.filter((c) => c.method === method),
    messages: (chatId) =>
      [...store.messages.values()].filter((m) => chatId === undefined || m.chatId === chatId),
    message: (messageId) => store.messages.get(messageId),
    get webhook() {
      return updates.webhook;
    },
    get commands() {
      return commands;
    },
    pushUpdate,
    sendText: (input) => pushUpdate({ message: textMessage(input, store.nextMessageId()) }, input.updateId),
    click(input) {
      const message = store.messages.get(input.messageId);
      const data = input.data ?? message?.buttons.flat().find((button) => button.text === input.label)?.data;
      if (data === undefined)
        throw new Error(`message ${input.messageId} has no button ${input.label ?? '?'}`);
      callbackCounter += 1;
      const id = `cq-${callbackCounter}`;
      callbacks.set(id, false);
      const updateId = pushUpdate({
        callback_query: callbackQuery(id, input.from, data, input.messageId, message),
      });
      clicks.set(updateId, id);
      return updateId;
    },
    callbackQueryId: (updateId) => clicks.get(updateId),
    outcome: (updateId, attempt = 1) => updates.tracker.outcome(updateId, attempt),
    attempts: (updateId) => updates.tracker.attempts(updateId),
    redeliver: (updateId) => updates.redeliver(updateId),
    failNext: (method, failure) => failures.add(method, failure),
    clearFailures: () => failures.clear(),
    pending: () => inFlight,
    block: (chatId) => store.blocked.add(chatId),
    addFile(bytes, path) {
      const fileId = `file-${files.size + 1}`;
      files.set(fileId, { bytes, path, uniqueId: `uniq${files.size + 1}` });
      return { fileId, fileUniqueId: `uniq${files.size}` };
    },
    async close() {
      updates.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
