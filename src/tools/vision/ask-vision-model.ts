import OpenAI from 'openai';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { createModelFetch } from '../../lib/create-model-fetch.js';

/** Default endpoint when `model.base_url` is not set. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface VisionQuestion {
  readonly model: Config['model'];
  readonly visionModel: string;
  readonly question: string;
  /** `data:<mime>;base64,…`, so the model endpoint never has to reach the image itself. */
  readonly imageDataUrl: string;
  readonly signal: AbortSignal;
}

/**
 * Builds the client for one call. Every option is passed explicitly so the SDK does not fall
 * back to environment variables (configuration is read once, by the loader); it never logs.
 */
export function createVisionClient(model: Config['model']): OpenAI {
  return new OpenAI({
    baseURL: model.base_url ?? OPENAI_BASE_URL,
    // Local OpenAI-compatible servers often need no key, but the SDK insists on one.
    apiKey: model.api_key ?? 'unset',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 1,
    timeout: model.timeout_ms,
    logLevel: 'off',
    fetch: createModelFetch(),
  });
}

/** Asks the vision model one question about one image and returns its text answer. */
export async function askVisionModel(request: VisionQuestion): Promise<string> {
  const client = createVisionClient(request.model);
  let completion: OpenAI.Chat.Completions.ChatCompletion;
  try {
    completion = await client.chat.completions.create(
      {
        model: request.visionModel,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: request.question },
              { type: 'image_url', image_url: { url: request.imageDataUrl } },
            ],
          },
        ],
      },
      { signal: request.signal },
    );
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason ?? error;
    throw describeModelError(error, request);
  }
  const answer = completion.choices[0]?.message.content?.trim();
  if (!answer) {
    throw new HermesError(
      'model_failed',
      `vision model ${request.visionModel} returned no text for the image`,
    );
  }
  return answer;
}

function describeModelError(error: unknown, request: VisionQuestion): HermesError {
  const model = request.visionModel;
  const fail = (message: string) =>
    new HermesError('model_failed', `vision_analyze: ${message}`, { cause: error });
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return fail(`vision model ${model} did not answer within ${request.model.timeout_ms} ms`);
  }
  if (error instanceof OpenAI.APIConnectionError)
    return fail('could not reach the model endpoint (model.base_url)');
  if (error instanceof OpenAI.APIError) {
    const detail = shorten(error.message);
    switch (error.status) {
      case 400:
        return fail(`the model endpoint rejected the request (${detail}); is ${model} able to read images?`);
      case 401:
      case 403:
        return fail(`the model endpoint refused the credentials (HTTP ${error.status}); check model.api_key`);
      case 404:
        return fail(`model ${model} was not found at the endpoint (HTTP 404); check model.vision_model`);
      case 413:
        return fail('the image is too large for the model endpoint (HTTP 413)');
      case 429:
        return fail('the model endpoint is rate limiting requests (HTTP 429); try again later');
      default:
        return fail(`the model endpoint failed (${detail})`);
    }
  }
  return fail(`the model call failed (${error instanceof Error ? shorten(error.message) : String(error)})`);
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
