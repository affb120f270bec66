import OpenAI from 'openai';
import { createModelFetch } from '../../src/lib/create-model-fetch.js';
import { closedLoop } from '../lib/closed-loop.js';
import { FAKE_ANSWER, FAKE_MODEL } from './fake-model-answer.js';
import { createHttpPoster, type HttpPoster } from './http-poster.js';
import type { LoadJob, LoadReply, LoadRequest } from './load-job.js';

/**
 * The bench's load generator, run as a child process (`startLoadClient`), so the clients' HTTP
 * work stays off the event loop being measured, as a remote client's would. Each IPC request
 * runs one closed loop and replies with its `LoadResult`; every answer must hold the fake model's
 * text. Keep-alive pools are kept per origin across runs. Exits when its parent goes away.
 */
const posters = new Map<string, { readonly poster: HttpPoster; readonly connections: number }>();
const models = new Map<string, OpenAI>();

/** A keep-alive pool per origin with at least `connections` sockets (one request per socket). */
function posterFor(origin: string, connections: number): HttpPoster {
  const known = posters.get(origin);
  if (known !== undefined && known.connections >= connections) return known.poster;
  // A run needs more sockets than the pool has: the old pool closes once its requests end.
  void known?.poster.close();
  const poster = createHttpPoster(origin, connections);
  posters.set(origin, { poster, connections });
  return poster;
}

function modelFor(baseURL: string): OpenAI {
  let client = models.get(baseURL);
  if (client === undefined) {
    client = new OpenAI({ baseURL, apiKey: 'sk-bench', maxRetries: 0, fetch: createModelFetch() });
    models.set(baseURL, client);
  }
  return client;
}

function callOf(job: LoadJob): (index: number) => Promise<void> {
  const target = job.target;
  if (target.kind === 'model') {
    const openai = modelFor(target.baseURL);
    return async () => {
      const stream = await openai.chat.completions.create({
        model: FAKE_MODEL,
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      if (!text.startsWith(FAKE_ANSWER)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
    };
  }
  const poster = posterFor(target.origin, job.concurrency);
  const conversations = target.conversations;
  return async (index) => {
    const headers =
      conversations === undefined
        ? undefined
        : {
            'x-hermes-session-id': `bench-conversation-${(conversations.offset + index) % conversations.count}`,
          };
    const text = await poster.post(target.path, target.body, headers);
    if (!text.includes(FAKE_ANSWER)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  };
}

process.on('message', (message: LoadRequest) => {
  const reply = (body: LoadReply) => process.send?.(body);
  closedLoop({
    total: message.job.total,
    concurrency: message.job.concurrency,
    call: callOf(message.job),
  }).then(
    (result) => reply({ id: message.id, result }),
    (error: unknown) =>
      reply({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  void Promise.all([...posters.values()].map(({ poster }) => poster.close())).finally(() => process.exit(0));
});
process.send?.({ ready: true });
