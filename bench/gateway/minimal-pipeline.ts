import { Queue, QueueEvents, Worker } from 'bullmq';
import Fastify from 'fastify';
import OpenAI from 'openai';
import { createModelFetch } from '../../src/lib/create-model-fetch.js';
import { FAKE_MODEL } from './fake-model-answer.js';

const connection = { host: '127.0.0.1', port: 6379 };

export interface MinimalPipeline {
  /** `http://127.0.0.1:<port>`; the route is `POST /turn` with `{ "text": "…" }`. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * The honest floor of a turn, built from the gateway's own parts: one fastify route enqueues one
 * BullMQ job and waits for it (QueueEvents + `waitUntilFinished`); the job's worker makes one
 * streaming `openai` SDK call to the same fake model and returns the text, which the route
 * sends back. No sessions, store, transcript, tools, system prompt or event bus.
 */
export async function startMinimalPipeline(options: {
  readonly modelBaseURL: string;
  readonly prefix: string;
  readonly concurrency: number;
}): Promise<MinimalPipeline> {
  const name = 'minimal';
  const { prefix } = options;
  const queue = new Queue<{ text: string }, string>(name, { connection, prefix });
  // waitUntilFinished adds a 'closing' listener to the queue per waiting request.
  queue.setMaxListeners(options.concurrency * 4 + 10);
  const events = new QueueEvents(name, { connection, prefix });
  // The gateway's own model transport, so the pipeline differs from a turn only in what a turn adds.
  const client = new OpenAI({
    baseURL: options.modelBaseURL,
    apiKey: 'sk-bench',
    maxRetries: 0,
    fetch: createModelFetch(),
  });
  const worker = new Worker<{ text: string }, string>(
    name,
    async (job) => {
      const stream = await client.chat.completions.create({
        model: FAKE_MODEL,
        messages: [{ role: 'user', content: job.data.text }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    },
    { connection, prefix, concurrency: options.concurrency },
  );
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);

  const app = Fastify({ logger: false });
  app.post<{ Body: { text?: unknown } }>('/turn', async (request) => {
    const text = typeof request.body.text === 'string' ? request.body.text : '';
    // Keep recent finished jobs: with removeOnComplete: true a fast job may vanish before
    // waitUntilFinished looks at it ("missing key").
    const job = await queue.add('turn', { text }, { removeOnComplete: { count: 1000 }, removeOnFail: true });
    const answer = await job.waitUntilFinished(events, 30_000);
    return { answer };
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    origin: address,
    async close() {
      await app.close();
      await worker.close();
      await events.close();
      await queue.close();
    },
  };
}
