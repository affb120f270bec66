import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import type { FeishuDocService } from './feishu/feishu-services.js';

/** Characters of a document returned at most (the rest is cut, and the result says so). */
const MAX_CHARS = 60_000;

const parameters = z.object({
  doc_token: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe(
      'The document to read: its link (https://….feishu.cn/docx/… or /wiki/…, also on larksuite.com) or its token.',
    ),
});

function service(services: { feishuDocs?: FeishuDocService }): FeishuDocService {
  if (services.feishuDocs === undefined)
    throw new HermesError('usage', 'Feishu is not configured in this gateway.');
  return services.feishuDocs;
}

export const feishuDocReadTool = defineTool({
  name: 'feishu_doc_read',
  toolset: 'feishu_doc',
  emoji: '📄',
  description:
    'Read the text of a Feishu/Lark document (docx, also through a wiki link) by its link or token. ' +
    'The app must have been given access to the document.',
  parameters,
  checkFn: (services): CheckResult =>
    services.feishuDocs === undefined ? { ok: false, reason: 'FEISHU_APP_ID not set' } : { ok: true },
  handler: async (args, ctx) => {
    const docs = service(ctx.services);
    let document: Awaited<ReturnType<FeishuDocService['readDocument']>>;
    try {
      document = await docs.readDocument(args.doc_token);
    } catch (error) {
      throw new HermesError(
        'platform_failed',
        `Feishu refused: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const cut = document.content.length > MAX_CHARS;
    return {
      document_id: document.documentId,
      ...(document.title !== undefined ? { title: document.title } : {}),
      content: cut ? document.content.slice(0, MAX_CHARS) : document.content,
      ...(cut ? { truncated: true, total_chars: document.content.length } : {}),
    };
  },
});
