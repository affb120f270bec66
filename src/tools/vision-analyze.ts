import { z } from 'zod';
import type { Config } from '../config/config-schema.js';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { sharedFileOrPath } from './files/shared-file-copy.js';
import { askVisionModel } from './vision/ask-vision-model.js';
import { loadImage } from './vision/load-image.js';

const NO_VISION_MODEL =
  'vision_analyze: set model.vision_model (HERMES_VISION_MODEL) to a vision-capable model';

function unavailableReason(config: Config): string | undefined {
  if (config.model.vision_model === undefined) return NO_VISION_MODEL;
  if (config.model.base_url === undefined && config.model.api_key === undefined) {
    return 'vision_analyze: no model endpoint configured; set model.api_key (OPENAI_API_KEY) or model.base_url (OPENAI_BASE_URL)';
  }
  return undefined;
}

export const visionAnalyzeTool = defineTool({
  name: 'vision_analyze',
  toolset: 'vision',
  description:
    'Look at an image and answer a question about it (describe it, read its text, compare details). ' +
    'The image is an http(s) URL or a local file path (PNG, JPEG, GIF or WebP, up to 20 MB).',
  emoji: '👁️',
  readOnly: true,
  requiresEnv: ['HERMES_VISION_MODEL'],
  parameters: z.object({
    image_url: z
      .string()
      .trim()
      .min(1)
      .max(8192)
      .describe('An http(s) URL of the image, or a local file path.'),
    question: z.string().trim().min(1).max(4000).describe('What to find out about the image.'),
  }),
  checkFn: (services) => {
    const reason = unavailableReason(services.config);
    return reason === undefined ? true : { ok: false, reason };
  },
  handler: async (args, ctx) => {
    const { config } = ctx.services;
    const reason = unavailableReason(config);
    const visionModel = config.model.vision_model;
    if (reason !== undefined || visionModel === undefined)
      throw new HermesError('model_failed', reason ?? NO_VISION_MODEL);
    // A chat photo stored in the shared database by the gateway that received it: this machine's copy.
    const local = /^[a-z][a-z0-9+.-]+:/i.test(args.image_url)
      ? args.image_url
      : (await sharedFileOrPath(args.image_url, ctx.cwd, ctx.services)).path;
    const image = await loadImage(local, { config, cwd: ctx.cwd, signal: ctx.signal });
    const imageDataUrl = `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}`;
    const analysis = await askVisionModel({
      model: config.model,
      visionModel,
      question: args.question,
      imageDataUrl,
      signal: ctx.signal,
    });
    return { analysis, model: visionModel };
  },
});
