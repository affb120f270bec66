import { writeFileSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config-schema.js';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { MAX_IMAGE_BYTES } from '../../src/tools/vision/load-image.js';
import { visionAnalyzeTool } from '../../src/tools/vision-analyze.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/fake-openai.js';
import { makeTempHome, testServices } from '../helpers/test-config.js';
import { configWith, startServer, type TestServer, TINY_PNG, toolContext } from './web/web-test-kit.js';

let home: { home: string; cleanup: () => void };
let openai: FakeOpenAi;
let images: TestServer;

const PNG_DATA_URL = `data:image/png;base64,${TINY_PNG.toString('base64')}`;

beforeEach(async () => {
  home = makeTempHome();
  openai = await startFakeOpenAi();
  images = await startServer((req, res) => {
    if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    else if (req.url === '/page')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not an image</p>');
    else if (req.url === '/fake.png')
      res.writeHead(200, { 'content-type': 'image/png' }).end('GIF? no, text');
    else res.writeHead(404).end();
  });
});

afterEach(async () => {
  await Promise.all([openai.close(), images.close()]);
  home.cleanup();
});

function config(extra: Record<string, unknown> = {}, model: Record<string, unknown> = {}): Config {
  return configWith(home.home, {
    model: { base_url: openai.baseURL, api_key: 'sk-test', vision_model: 'fake-vision', ...model },
    web: { allow_private: [`127.0.0.1:${images.port}`] },
    ...extra,
  });
}

async function analyze(args: { image_url: string; question: string }, cfg = config(), signal?: AbortSignal) {
  const parsed = visionAnalyzeTool.parameters.parse(args);
  return visionAnalyzeTool.handler(parsed, toolContext(cfg, { signal, cwd: home.home }));
}

async function failure(run: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await run;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected vision_analyze to fail');
}

describe('vision_analyze availability', () => {
  it('needs model.vision_model', () => {
    const cfg = configWith(home.home, { model: { base_url: openai.baseURL } });
    expect(visionAnalyzeTool.checkFn?.(testServices(cfg))).toEqual({
      ok: false,
      reason: 'vision_analyze: set model.vision_model (HERMES_VISION_MODEL) to a vision-capable model',
    });
  });

  it('needs an endpoint or a key', () => {
    const cfg = configWith(home.home, { model: { vision_model: 'v' } });
    expect(visionAnalyzeTool.checkFn?.(testServices(cfg))).toEqual({
      ok: false,
      reason: expect.stringContaining('no model endpoint configured'),
    });
  });

  it('is available when configured (also through HERMES_VISION_MODEL)', () => {
    expect(visionAnalyzeTool.checkFn?.(testServices(config()))).toBe(true);
    const fromEnv = configWith(home.home, {}, { HERMES_VISION_MODEL: 'v', OPENAI_API_KEY: 'k' });
    expect(visionAnalyzeTool.checkFn?.(testServices(fromEnv))).toBe(true);
    expect(visionAnalyzeTool).toMatchObject({ toolset: 'vision', readOnly: true });
  });
});

describe('vision_analyze', () => {
  it('sends a local image as a data URL with the question and returns the answer', async () => {
    writeFileSync(join(home.home, 'shot.png'), TINY_PNG);
    openai.script({ content: 'A single transparent pixel.' });
    const result = await analyze({ image_url: 'shot.png', question: 'What is in this picture?' });
    expect(result).toEqual({ analysis: 'A single transparent pixel.', model: 'fake-vision' });
    const [request] = openai.requests;
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.body).toMatchObject({
      model: 'fake-vision',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: PNG_DATA_URL } },
          ],
        },
      ],
    });
  });

  it('fetches an allowed URL through the guard and inlines it', async () => {
    openai.script({ content: 'a cat' });
    await expect(analyze({ image_url: images.url('/cat.png'), question: 'animal?' })).resolves.toMatchObject({
      analysis: 'a cat',
    });
    expect(images.seen).toHaveLength(1);
    expect(openai.requests[0]?.body).toMatchObject({
      messages: [{ content: [{ type: 'text' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }],
    });
  });

  it('refuses private image URLs that the allowlist does not name', async () => {
    const error = await failure(
      analyze({ image_url: images.url('/cat.png'), question: 'q' }, config({ web: { allow_private: [] } })),
    );
    expect(isHermesError(error, 'ssrf_refused')).toBe(true);
    expect(images.seen).toHaveLength(0);
    expect(openai.requests).toHaveLength(0);
  });

  it.each([
    ['/page', 'is not an image (content type text/html)'],
    ['/fake.png', 'is not a PNG, JPEG, GIF or WebP image'],
    ['/missing.png', 'HTTP 404'],
  ])('rejects %s', async (path, message) => {
    const error = await failure(analyze({ image_url: images.url(path), question: 'q' }));
    expect(error.message).toContain(message);
    expect(openai.requests).toHaveLength(0);
  });

  it('reads only images from disk: other files, secrets, missing and oversized files are refused', async () => {
    const cfg = config();
    writeFileSync(join(home.home, 'notes.txt'), 'OPENAI_API_KEY=sk-do-not-leak');
    writeFileSync(join(home.home, '.env'), 'OPENAI_API_KEY=sk-do-not-leak');
    const big = join(home.home, 'huge.png');
    writeFileSync(big, TINY_PNG);
    await truncate(big, MAX_IMAGE_BYTES + 1);

    const text = await failure(analyze({ image_url: 'notes.txt', question: 'q' }, cfg));
    expect(text.message).toContain('is not a PNG, JPEG, GIF or WebP image');
    expect(text.message).not.toContain('sk-do-not-leak');
    const secret = await failure(
      analyze({ image_url: `file://${join(home.home, '.env')}`, question: 'q' }, cfg),
    );
    expect(isHermesError(secret, 'path_refused')).toBe(true);
    const missing = await failure(analyze({ image_url: './nope.png', question: 'q' }, cfg));
    expect(missing.message).toContain('no such file');
    const huge = await failure(analyze({ image_url: big, question: 'q' }, cfg));
    expect(huge.message).toContain(`images may be at most ${MAX_IMAGE_BYTES}`);
    const scheme = await failure(analyze({ image_url: 'ftp://example.com/a.png', question: 'q' }, cfg));
    expect(scheme.message).toContain('not a ftp: URL');
    expect(openai.requests).toHaveLength(0);
  });

  it.each([
    [400, 'the model endpoint rejected the request', 'is fake-vision able to read images?'],
    [401, 'the model endpoint refused the credentials (HTTP 401)', 'check model.api_key'],
    [404, 'model fake-vision was not found at the endpoint (HTTP 404)', 'check model.vision_model'],
  ])('turns a model HTTP %i into a clear error', async (status, first, second) => {
    writeFileSync(join(home.home, 'shot.png'), TINY_PNG);
    openai.script({ status, error: 'upstream says no' });
    const error = await failure(analyze({ image_url: 'shot.png', question: 'q' }));
    expect(isHermesError(error, 'model_failed')).toBe(true);
    expect(error.message).toContain(first);
    expect(error.message).toContain(second);
    expect(error.message).not.toContain('sk-test');
  });

  it('reports an empty answer and a model that does not answer in time', async () => {
    writeFileSync(join(home.home, 'shot.png'), TINY_PNG);
    openai.script({ content: '' });
    expect((await failure(analyze({ image_url: 'shot.png', question: 'q' }))).message).toContain(
      'returned no text',
    );

    openai.script({ hang: true }, { hang: true });
    const slow = config({}, { timeout_ms: 200 });
    const error = await failure(analyze({ image_url: 'shot.png', question: 'q' }, slow));
    expect(error.message).toBe('vision_analyze: vision model fake-vision did not answer within 200 ms');
  });

  it('stops when the turn is aborted', async () => {
    writeFileSync(join(home.home, 'shot.png'), TINY_PNG);
    const controller = new AbortController();
    openai.respond = () => {
      controller.abort(new Error('turn stopped'));
      return { hang: true };
    };
    const error = await failure(
      analyze({ image_url: 'shot.png', question: 'q' }, config(), controller.signal),
    );
    expect(error.message).toBe('turn stopped');
  });
});
