import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { PlatformError } from '../adapter.js';
import { larkError, larkRefusal } from './feishu-errors.js';
import { feishuSettings } from './feishu-settings.js';
import { type LarkClient, lazyLarkClient } from './lark-client.js';

/** A document reference: a docx or wiki link, or a bare token (tried as a docx). */
export function parseDocReference(reference: string): { kind: 'docx' | 'wiki'; token: string } {
  const trimmed = reference.trim();
  let path = trimmed;
  if (/^https?:\/\//i.test(trimmed)) {
    try {
      path = new URL(trimmed).pathname;
    } catch {
      throw new PlatformError('bad_request', 'not a valid document link');
    }
    const match = /\/(docx|wiki)\/([A-Za-z0-9]+)/.exec(path);
    if (match === null) throw new PlatformError('bad_request', 'only docx and wiki links can be read');
    return { kind: match[1] === 'wiki' ? 'wiki' : 'docx', token: match[2] ?? '' };
  }
  if (!/^[A-Za-z0-9]{8,64}$/.test(path)) throw new PlatformError('bad_request', 'not a document token');
  return { kind: 'docx', token: path };
}

/**
 * Reads a document's text over the open API (docx raw content; a wiki node is looked up first).
 * Shaped as the tool's `FeishuDocService` (tools/feishu/feishu-services.ts) without importing it.
 */
export function createFeishuDocReader(clientOf: () => Promise<LarkClient>) {
  async function docx(documentId: string): Promise<string> {
    const client = await clientOf();
    let answer: Awaited<ReturnType<LarkClient['docx']['v1']['document']['rawContent']>>;
    try {
      answer = await client.docx.v1.document.rawContent({
        path: { document_id: documentId },
        params: { lang: 0 },
      });
    } catch (error) {
      throw larkError('docx.raw_content', error);
    }
    const refusal = larkRefusal('docx.raw_content', answer);
    if (refusal !== undefined) throw refusal;
    return answer.data?.content ?? '';
  }

  return {
    async readDocument(reference: string) {
      const ref = parseDocReference(reference);
      if (ref.kind === 'docx')
        return { documentId: ref.token, title: undefined, content: await docx(ref.token) };
      let node: Awaited<ReturnType<LarkClient['wiki']['v2']['space']['getNode']>>;
      try {
        node = await (await clientOf()).wiki.v2.space.getNode({
          params: { token: ref.token, obj_type: 'wiki' },
        });
      } catch (error) {
        throw larkError('wiki.get_node', error);
      }
      const refusal = larkRefusal('wiki.get_node', node);
      if (refusal !== undefined) throw refusal;
      const found = node.data?.node;
      if (found?.obj_token === undefined) throw new PlatformError('not_found', 'the wiki page was not found');
      if (found.obj_type !== 'docx') {
        throw new PlatformError('bad_request', `the wiki page is a ${found.obj_type}, not a document`);
      }
      return { documentId: found.obj_token, title: found.title, content: await docx(found.obj_token) };
    },
  };
}

/** The document reader when Feishu is configured (a half-configured Feishu gives none here; start refuses it). */
export function feishuDocReaderFromConfig(
  config: Config,
  logger: Logger,
): ReturnType<typeof createFeishuDocReader> | undefined {
  let settings: ReturnType<typeof feishuSettings>;
  try {
    settings = feishuSettings(config);
  } catch {
    return undefined;
  }
  if (settings === undefined) return undefined;
  return createFeishuDocReader(lazyLarkClient(settings, logger));
}
