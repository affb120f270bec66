/**
 * What the `feishu_doc_read` tool needs, added to ToolServices by declaration merging. The
 * composition root provides it when Feishu is configured (API calls only, so worker processes
 * have it too); without it the tool is unavailable.
 */

export interface FeishuDocument {
  readonly documentId: string;
  /** The wiki page's title, when the document was found through a wiki link. */
  readonly title: string | undefined;
  /** The document's plain text. */
  readonly content: string;
}

export interface FeishuDocService {
  /** A document (docx) by its URL, its token, or a wiki link or token; throws when it cannot be read. */
  readDocument(reference: string): Promise<FeishuDocument>;
}

declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly feishuDocs?: FeishuDocService;
  }
}
