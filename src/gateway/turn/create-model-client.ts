import OpenAI from 'openai';
import type { Config } from '../../config/config-schema.js';
import { createModelFetch } from '../../lib/create-model-fetch.js';

/**
 * The OpenAI SDK client for the configured endpoint, or undefined when no endpoint is
 * configured at all. Retries are the SDK's own (429 and 5xx, with backoff); the transport is
 * `createModelFetch` (undici's `request()`, cheaper per call than the global fetch).
 */
export function createModelClient(config: Config): OpenAI | undefined {
  const { model } = config;
  if (model.base_url === undefined && model.api_key === undefined) return undefined;
  return new OpenAI({
    apiKey: model.api_key ?? 'not-needed',
    ...(model.base_url !== undefined ? { baseURL: model.base_url } : {}),
    timeout: model.timeout_ms,
    maxRetries: 2,
    fetch: createModelFetch(),
  });
}
