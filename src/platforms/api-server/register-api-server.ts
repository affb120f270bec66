import { createHash } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import type { Ingress, TurnEnd, TurnOriginInput } from '../ingress.js';
import { access, requireRouteAccess } from '../platform.js';
import {
  type ChatMessage,
  chatRequestSchema,
  imageProblem,
  splitContent,
  toHistoryMessage,
} from './chat-request.js';
import { openAiError } from './openai-error.js';
import { addResponsesRoute } from './register-responses.js';
import { addRunRoutes } from './register-runs.js';

export interface ApiServerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly ingress: Ingress;
  readonly now?: () => number;
}

/** The header that names a server-side conversation (the `user` field works too). */
export const SESSION_HEADER = 'x-hermes-session-id';

/** Where the API server's routes live. */
export const API_SERVER_PREFIX = '/v1';

/**
 * The OpenAI-compatible front door on `app` (the gateway's server, which enforces route access):
 * its routes under `/v1`. The gateway mounts them through the platform list instead
 * (api-server-platform.ts); this is for embedding and tests.
 */
export function registerApiServer(app: FastifyInstance, deps: ApiServerDeps): void {
  // The key check is attached to each route by the server (route-access.ts): a route is
  // authenticated whatever spelling of its path the router matched.
  requireRouteAccess(app, 'the API server');
  void app.register(async (scope) => addApiServerRoutes(scope, deps), { prefix: API_SERVER_PREFIX });
}

/**
 * `POST /v1/chat/completions` (JSON or SSE) and `GET /v1/models` on a scope under `/v1`. Every
 * request becomes an input of an unattended session; the answer comes back over the ingress from
 * whichever worker ran the turn.
 */
export function addApiServerRoutes(app: FastifyInstance, deps: ApiServerDeps): void {
  const { config, logger, ingress } = deps;
  const modelName = config.model.name ?? 'hermes-agent';
  // Request ids are random UUIDs minted below: only this process can be waiting for them.
  const turns = ingress.watchTurns('api_server', { idsMintedHere: true });
  const now = deps.now ?? Date.now;
  requireRouteAccess(app, 'the API server');

  app.get('/models', access('api_key'), async () => ({
    object: 'list',
    data: [{ id: modelName, object: 'model', created: 0, owned_by: 'hermes-gateway' }],
  }));
  methodNotAllowed(app, '/models', 'GET');
  methodNotAllowed(app, '/chat/completions', 'POST');

  const maxBodyBytes = config.platforms.api_server.max_body_bytes;
  const postOptions = {
    ...access('api_key'),
    bodyLimit: maxBodyBytes,
    errorHandler: bodyErrorHandler(maxBodyBytes),
  };
  addRunRoutes(app, { config, logger, ingress, now }, postOptions);
  addResponsesRoute(app, { config, logger, ingress, now }, postOptions);

  app.post('/chat/completions', postOptions, async (request, reply) => {
    if (typeof request.body === 'string' || Buffer.isBuffer(request.body)) {
      return reply.code(415).send(notJson(request.headers['content-type']));
    }
    const parsed = chatRequestSchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join('.') || 'body';
      return reply
        .code(400)
        .send(
          openAiError(
            `Invalid request: '${where}': ${issue?.message ?? 'malformed'}`,
            'invalid_request_error',
          ),
        );
    }
    const body = parsed.data;
    const last = body.messages[body.messages.length - 1] as ChatMessage;
    const { text, images } = splitContent(last.content);
    if (last.role !== 'user' || (text.trim() === '' && images.length === 0)) {
      return reply
        .code(400)
        .send(
          openAiError(
            'The last message must be a user message with text or images.',
            'invalid_request_error',
          ),
        );
    }
    const badImages = imageProblem(images);
    if (badImages !== undefined) {
      return reply.code(400).send(openAiError(badImages, 'invalid_request_error', 'invalid_image'));
    }
    const unavailable = ingress.unavailableReason();
    if (unavailable !== undefined) {
      return reply.code(503).send(openAiError(unavailable, 'service_unavailable', 'model_not_configured'));
    }

    // Time-ordered: a standalone request's session key and id are new rows in the store's
    // indexes, and ids that follow the clock land on the same few pages (see newSessionId).
    const requestId = timeOrderedId();
    const headerConversation = request.headers[SESSION_HEADER];
    const conversation =
      typeof headerConversation === 'string' && headerConversation !== '' ? headerConversation : body.user;
    const chatId =
      conversation === undefined
        ? `req-${requestId}`
        : `conv-${createHash('sha256').update(conversation).digest('hex').slice(0, 32)}`;
    const sessionKey = ingress.sessionKey({ platform: 'api_server', chatType: 'dm', chatId });
    if (conversation === undefined && body.messages.length > 1) {
      await ingress.appendHistory(sessionKey, body.messages.slice(0, -1).flatMap(toHistoryMessage));
    }

    const origin: TurnOriginInput = {
      platform: 'api_server',
      chatType: 'dm',
      chatId,
      userId: body.user ?? 'api',
      // Nobody can answer a prompt here; approvals.unattended_mode decides what the gate does.
      unattended: true,
      toolset: 'hermes-api-server',
      ...(body.model !== undefined && body.model !== modelName ? { model: body.model } : {}),
      ...(images.length > 0 ? { images } : {}),
    };
    // What the turn would refuse is refused here, with the reason, before anything is queued.
    const problem = ingress.checkOrigin(origin);
    if (problem !== undefined) {
      return reply.code(400).send(openAiError(`Invalid request: ${problem}`, 'invalid_request_error'));
    }
    const eventId = `api:${requestId}`;
    const completionId = `chatcmpl-${requestId.replace(/-/g, '')}`;
    const created = Math.floor(now() / 1000);
    const stream = body.stream === true;
    // As OpenAI does: with include_usage every chunk carries `usage: null`, and one last chunk
    // without choices carries the turn's token counts.
    const includeUsage = stream && body.stream_options?.include_usage === true;
    const usageField = includeUsage ? { usage: null } : {};
    let streamed = '';
    let retried = false;

    const chunk = (
      delta: Record<string, unknown>,
      finish: string | null = null,
      extra: Record<string, unknown> = {},
    ) =>
      `data: ${JSON.stringify({
        id: completionId,
        object: 'chat.completion.chunk',
        created,
        model: modelName,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...usageField,
        ...extra,
      })}\n\n`;

    const watcher = await turns.watch({
      eventId,
      timeoutMs: config.queue.api_timeout_ms,
      onProgress: (event) => {
        if (!stream) return;
        const progress = event.progress;
        if (progress['kind'] === 'text_delta' && typeof progress['text'] === 'string' && !retried) {
          streamed += progress['text'];
          reply.raw.write(chunk({ content: progress['text'] }));
        } else if (progress['kind'] === 'model_retry') {
          retried = true;
        } else if (progress['kind'] === 'tool_started' || progress['kind'] === 'tool_finished') {
          reply.raw.write(
            `data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created, model: modelName, choices: [], ...usageField, hermes: { tool_progress: progress } })}\n\n`,
          );
        }
      },
    });

    const input = {
      sessionKey,
      eventId,
      text,
      origin,
      receivedAt: now(),
      // A fresh UUID per request can never repeat: remembering it would only cost memory.
      dedupe: false,
      // Each request is a turn of its own with its own answer, queued behind the session's
      // running turn: merging messages into one turn is a chat behaviour, not an HTTP one.
      solo: true,
    };
    if (stream) {
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-hermes-session-key': sessionKey,
      });
      reply.raw.write(chunk({ role: 'assistant', content: '' }));
    }
    try {
      await ingress.submit(input);
    } catch (error) {
      watcher.cancel();
      logger.error({ err: (error as Error).message, sessionKey }, 'api request could not be queued');
      return fail(
        reply,
        stream,
        503,
        'The gateway could not accept the request right now; try again shortly.',
        'queue_unavailable',
      );
    }
    const end = await watcher.done;
    if (!stream) return respond(reply, end);
    const raw = reply.raw;
    if (end.type === 'final') {
      const rest = end.text.startsWith(streamed) ? end.text.slice(streamed.length) : `\n\n${end.text}`;
      if (rest !== '') raw.write(chunk({ content: rest }));
      raw.write(chunk({}, 'stop'));
      if (includeUsage) {
        raw.write(
          `data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created, model: modelName, choices: [], usage: usageOf(end) })}\n\n`,
        );
      }
    } else {
      raw.write(`data: ${JSON.stringify(endError(end))}\n\n`);
    }
    raw.end('data: [DONE]\n\n');
    return reply;
  });

  function respond(reply: FastifyReply, end: TurnEnd): FastifyReply {
    if (end.type !== 'final') return reply.code(endStatus(end)).send(endError(end));
    return reply.header('x-hermes-session-key', end.sessionKey).send({
      id: `chatcmpl-${end.turnId.replace(/[^A-Za-z0-9]/g, '').slice(0, 40)}`,
      object: 'chat.completion',
      created: Math.floor(now() / 1000),
      model: modelName,
      choices: [{ index: 0, message: { role: 'assistant', content: end.text }, finish_reason: 'stop' }],
      usage: usageOf(end),
    });
  }

  function fail(
    reply: FastifyReply,
    stream: boolean,
    status: number,
    message: string,
    type: string,
  ): FastifyReply {
    if (!stream) return reply.code(status).send(openAiError(message, type));
    reply.raw.end(`data: ${JSON.stringify(openAiError(message, type))}\n\ndata: [DONE]\n\n`);
    return reply;
  }
}

/** The turn's token counts in the OpenAI shape (zeros when the model reported none). */
function usageOf(end: Extract<TurnEnd, { type: 'final' }>): {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
} {
  const prompt = end.usage?.promptTokens ?? 0;
  const completion = end.usage?.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function notJson(contentType: string | undefined): { error: Record<string, string | null> } {
  const given = contentType === undefined ? 'no Content-Type' : `Content-Type '${contentType.slice(0, 100)}'`;
  return openAiError(
    `The body was sent with ${given}; send it as JSON with the header Content-Type: application/json.`,
    'invalid_request_error',
    'unsupported_media_type',
  );
}

/** Errors of reading the body (fastify's content-type parsers) as OpenAI-shaped answers that say what to send. */
function bodyErrorHandler(maxBodyBytes: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send(notJson(request.headers['content-type']));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply
          .code(413)
          .send(
            openAiError(
              `The request body is larger than ${maxBodyBytes} bytes (platforms.api_server.max_body_bytes): send fewer or smaller images, or raise the limit.`,
              'invalid_request_error',
              'request_too_large',
            ),
          );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply
          .code(400)
          .send(
            openAiError(
              'The body is empty: send a JSON object with "messages" (and optionally "model", "stream").',
              'invalid_request_error',
            ),
          );
      default:
        break;
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error.message }, 'api request failed');
      return reply.code(500).send(openAiError('internal error', 'server_error'));
    }
    const message =
      error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
        ? `The body is not valid JSON (${error.message}).`
        : error.message;
    return reply.code(status).send(openAiError(message, 'invalid_request_error'));
  };
}

/** Other methods on an API path: 405 with `Allow`, in the OpenAI error shape. */
function methodNotAllowed(app: FastifyInstance, url: string, allowed: 'GET' | 'POST'): void {
  const shown = `${API_SERVER_PREFIX}${url}`;
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((method) => method !== allowed);
  app.route({
    method: [...others],
    url,
    ...access('api_key'),
    handler: async (request, reply) =>
      reply
        .code(405)
        .header('allow', allowed === 'GET' ? 'GET, HEAD' : allowed)
        .send(
          openAiError(
            `${request.method} is not supported on ${shown}; use ${allowed}.`,
            'invalid_request_error',
            'method_not_allowed',
          ),
        ),
  });
}

function endStatus(end: Exclude<TurnEnd, { type: 'final' }>): number {
  if (end.type === 'parked') return 409;
  if (end.type === 'timeout') return 504;
  switch (end.code) {
    case 'invalid_request':
      return 400;
    case 'no_model':
      return 503;
    case 'model_unreachable':
    case 'model_error':
      return 502;
    case 'interrupted':
      return 409;
    default:
      return 500;
  }
}

function endError(end: Exclude<TurnEnd, { type: 'final' }>): { error: Record<string, string | null> } {
  if (end.type === 'parked') {
    return openAiError(
      'The turn is waiting for a human decision, which this API cannot collect.',
      'turn_parked',
    );
  }
  if (end.type === 'timeout') {
    return openAiError('No answer in time; the turn may still finish and is kept in its session.', 'timeout');
  }
  return openAiError(end.message, 'turn_failed', end.code);
}
