import { randomBytes } from 'node:crypto';
import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { Ingress, TurnEnd, TurnOriginInput } from '../ingress.js';
import { imageProblem } from './chat-request.js';
import { openAiError } from './openai-error.js';
import { RESPONSE_ID, responsesRequestSchema, splitResponsesInput } from './responses-request.js';

export interface ResponsesDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly ingress: Ingress;
  readonly now: () => number;
}

/**
 * `POST /v1/responses`: the OpenAI Responses shape over the same turns as chat completions —
 * JSON, or with `"stream": true` the Responses SSE events (`response.created` …
 * `response.output_text.delta` … `response.completed`). `previous_response_id` continues the
 * conversation the gateway keeps (the id carries its conversation token). Unattended, as chat
 * completions are.
 */
export function addResponsesRoute(
  app: FastifyInstance,
  deps: ResponsesDeps,
  postOptions: RouteShorthandOptions,
): void {
  const { config, ingress, logger, now } = deps;
  const modelName = config.model.name ?? 'hermes-agent';
  const turns = ingress.watchTurns('api_server', { idsMintedHere: true });
  app.addHook('onClose', async () => turns.close());

  app.post('/responses', postOptions, async (request, reply) => {
    const parsed = responsesRequestSchema.safeParse(request.body);
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
    const { last, history } = splitResponsesInput(body);
    if (last.role !== 'user' || (last.text.trim() === '' && last.images.length === 0)) {
      return reply
        .code(400)
        .send(
          openAiError(
            'The last input item must be a user message with text or images.',
            'invalid_request_error',
          ),
        );
    }
    const badImages = imageProblem(last.images);
    if (badImages !== undefined) {
      return reply.code(400).send(openAiError(badImages, 'invalid_request_error', 'invalid_image'));
    }
    const unavailable = ingress.unavailableReason();
    if (unavailable !== undefined) {
      return reply.code(503).send(openAiError(unavailable, 'service_unavailable', 'model_not_configured'));
    }

    const previous = body.previous_response_id ? RESPONSE_ID.exec(body.previous_response_id) : null;
    // A new conversation unless the request continues one (its token is in the previous id).
    const conversation = previous?.[1] ?? randomBytes(16).toString('hex');
    const requestToken = randomBytes(16).toString('hex');
    const responseId = `resp_${conversation}_${requestToken}`;
    const messageId = `msg_${requestToken}`;
    const chatId = `resp-${conversation}`;
    const sessionKey = ingress.sessionKey({ platform: 'api_server', chatType: 'dm', chatId });
    if (previous === null && history.length > 0) await ingress.appendHistory(sessionKey, history);
    const origin: TurnOriginInput = {
      platform: 'api_server',
      chatType: 'dm',
      chatId,
      userId: body.user ?? 'api',
      unattended: true,
      toolset: 'hermes-api-server',
      ...(body.model !== undefined && body.model !== modelName ? { model: body.model } : {}),
      ...(last.images.length > 0 ? { images: last.images } : {}),
    };
    const problem = ingress.checkOrigin(origin);
    if (problem !== undefined) {
      return reply.code(400).send(openAiError(`Invalid request: ${problem}`, 'invalid_request_error'));
    }

    const createdAt = Math.floor(now() / 1000);
    const stream = body.stream === true;
    let sequence = 0;
    let streamed = '';
    const send = (type: string, data: Record<string, unknown>) =>
      reply.raw.write(
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
      );
    const shell = (status: string, extra: Record<string, unknown> = {}) => ({
      id: responseId,
      object: 'response',
      created_at: createdAt,
      status,
      model: modelName,
      ...(body.previous_response_id ? { previous_response_id: body.previous_response_id } : {}),
      output: [],
      ...extra,
    });
    const message = (text: string, status: string) => ({
      type: 'message',
      id: messageId,
      status,
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    });

    const eventId = `api:${responseId}`;
    const watcher = await turns.watch({
      eventId,
      timeoutMs: config.queue.api_timeout_ms,
      onProgress: (event) => {
        if (!stream || event.progress['kind'] !== 'text_delta') return;
        const text = event.progress['text'];
        if (typeof text !== 'string') return;
        streamed += text;
        send('response.output_text.delta', {
          item_id: messageId,
          output_index: 0,
          content_index: 0,
          delta: text,
        });
      },
    });
    if (stream) {
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      send('response.created', { response: shell('in_progress') });
      send('response.in_progress', { response: shell('in_progress') });
      send('response.output_item.added', {
        output_index: 0,
        item: { ...message('', 'in_progress'), content: [] },
      });
      send('response.content_part.added', {
        item_id: messageId,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    try {
      await ingress.submit({
        sessionKey,
        eventId,
        text: last.text,
        origin,
        receivedAt: now(),
        dedupe: false,
        solo: true,
      });
    } catch (error) {
      watcher.cancel();
      logger.error({ err: (error as Error).message, sessionKey }, 'responses request could not be queued');
      const failure = {
        code: 'queue_unavailable',
        message: 'The gateway could not accept the request right now.',
      };
      if (!stream)
        return reply.code(503).send(openAiError(failure.message, 'service_unavailable', failure.code));
      send('response.failed', { response: shell('failed', { error: failure }) });
      reply.raw.end();
      return reply;
    }
    const end = await watcher.done;
    if (end.type !== 'final') {
      const failure = failureOf(end);
      if (!stream)
        return reply.code(failure.status).send(openAiError(failure.message, 'turn_failed', failure.code));
      send('response.failed', {
        response: shell('failed', { error: { code: failure.code, message: failure.message } }),
      });
      reply.raw.end();
      return reply;
    }
    const usage = {
      input_tokens: end.usage?.promptTokens ?? 0,
      output_tokens: end.usage?.completionTokens ?? 0,
      total_tokens: (end.usage?.promptTokens ?? 0) + (end.usage?.completionTokens ?? 0),
    };
    const done = shell('completed', {
      output: [message(end.text, 'completed')],
      output_text: end.text,
      usage,
    });
    if (!stream) return reply.header('x-hermes-session-key', sessionKey).send(done);
    // Text the stream did not carry (a retried model call started over) comes as one last delta.
    const rest = end.text.startsWith(streamed) ? end.text.slice(streamed.length) : '';
    if (rest !== '') {
      send('response.output_text.delta', {
        item_id: messageId,
        output_index: 0,
        content_index: 0,
        delta: rest,
      });
    }
    send('response.output_text.done', {
      item_id: messageId,
      output_index: 0,
      content_index: 0,
      text: end.text,
    });
    send('response.content_part.done', {
      item_id: messageId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: end.text, annotations: [] },
    });
    send('response.output_item.done', { output_index: 0, item: message(end.text, 'completed') });
    send('response.completed', { response: done });
    reply.raw.end();
    return reply;
  });
}

function failureOf(end: Exclude<TurnEnd, { type: 'final' }>): {
  status: number;
  code: string;
  message: string;
} {
  if (end.type === 'timeout') {
    return {
      status: 504,
      code: 'timeout',
      message: 'No answer in time; the turn may still finish in its session.',
    };
  }
  if (end.type === 'parked') {
    return {
      status: 409,
      code: 'turn_parked',
      message: 'The turn waits for a human decision; use /v1/runs.',
    };
  }
  const status = end.code === 'no_model' ? 503 : end.code.startsWith('model_') ? 502 : 500;
  return { status, code: end.code, message: end.message };
}
