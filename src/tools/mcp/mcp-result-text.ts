/**
 * The text the model reads for an MCP tool result: text blocks as they are, embedded text
 * resources with their URI, and a one-line note for images, audio, binary resources and links
 * (their bytes are not sent to the model). With no content, the structured result as JSON.
 */
export function mcpResultText(result: unknown): { readonly text: string; readonly isError: boolean } {
  const record = isRecord(result) ? result : {};
  const isError = record['isError'] === true;
  const parts: string[] = [];
  const content = Array.isArray(record['content']) ? record['content'] : [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    parts.push(blockText(block));
  }
  if (parts.length === 0 && record['structuredContent'] !== undefined) {
    parts.push(JSON.stringify(record['structuredContent']));
  }
  if (parts.length === 0 && 'toolResult' in record) parts.push(JSON.stringify(record['toolResult']));
  return { text: parts.join('\n'), isError };
}

function blockText(block: Record<string, unknown>): string {
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string' ? block['text'] : '';
    case 'image':
    case 'audio':
      return `[${block['type']} ${String(block['mimeType'] ?? '')}, ${base64Bytes(block['data'])} bytes, not shown]`;
    case 'resource': {
      const resource = isRecord(block['resource']) ? block['resource'] : {};
      const uri = String(resource['uri'] ?? '');
      if (typeof resource['text'] === 'string') return `[resource ${uri}]\n${resource['text']}`;
      return `[resource ${uri} ${String(resource['mimeType'] ?? '')}, ${base64Bytes(resource['blob'])} bytes, not shown]`;
    }
    case 'resource_link':
      return `[link ${String(block['name'] ?? '')} ${String(block['uri'] ?? '')}]`;
    default:
      return `[${String(block['type'] ?? 'unknown')} content not shown]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
