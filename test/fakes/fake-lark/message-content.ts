/**
 * What Lark does with a message's `content`: parses it for its `msg_type`, applies the size limits,
 * and renders what a user would see (text, card buttons). Card JSON 1.0 and 2.0 are both read.
 */

export interface CardButton {
  readonly text: string;
  /** The callback value (`value`, or a 2.0 `behaviors` callback's value); undefined for link buttons. */
  readonly value: unknown;
  readonly type: string | undefined;
}

export interface RenderedContent {
  /** The visible text: the text message, the post's title and lines, or the card's texts in order. */
  readonly text: string;
  readonly buttons: readonly CardButton[];
  /** A shared card (`config.update_multi: true`; JSON 2.0 cards are always shared). */
  readonly updateMulti: boolean;
  /** image_key / file_key values the content refers to. */
  readonly resourceKeys: readonly string[];
}

export type ContentCheck =
  | { readonly ok: true; readonly rendered: RenderedContent }
  | { readonly ok: false; readonly code: number; readonly msg: string };

export interface ContentLimits {
  /** Request body cap for text messages, bytes (Lark: 150 KB). */
  readonly textBytes: number;
  /** Request body cap for post and interactive messages, bytes (Lark: 30 KB). */
  readonly cardBytes: number;
}

const INVALID = 230001;
const TOO_LONG = 230025;
const CARD_FAILED = 230099;

const invalid = (ext: string): ContentCheck => ({
  ok: false,
  code: INVALID,
  msg: `Your request contains an invalid request parameter, ext=${ext}`,
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const TEXT_TAGS = new Set(['plain_text', 'lark_md', 'markdown']);

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (isRecord(node) && typeof node['content'] === 'string') return node['content'];
  return '';
}

function buttonValue(node: Record<string, unknown>): unknown {
  if (node['value'] !== undefined) return node['value'];
  const behaviors = node['behaviors'];
  if (!Array.isArray(behaviors)) return undefined;
  for (const behavior of behaviors) {
    if (isRecord(behavior) && behavior['type'] === 'callback') return behavior['value'];
  }
  return undefined;
}

function walkCard(node: unknown, lines: string[], buttons: CardButton[], keys: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) walkCard(item, lines, buttons, keys);
    return;
  }
  if (!isRecord(node)) return;
  const tag = node['tag'];
  if (tag === 'button') {
    buttons.push({
      text: textOf(node['text']),
      value: buttonValue(node),
      type: typeof node['type'] === 'string' ? node['type'] : undefined,
    });
    return;
  }
  if (typeof tag === 'string' && TEXT_TAGS.has(tag) && typeof node['content'] === 'string') {
    lines.push(node['content']);
  }
  if (tag === 'img' && typeof node['img_key'] === 'string') keys.push(node['img_key']);
  for (const value of Object.values(node)) walkCard(value, lines, buttons, keys);
}

function renderCard(card: Record<string, unknown>): ContentCheck {
  if (card['type'] === 'template') {
    return {
      ok: true,
      rendered: { text: '[template card]', buttons: [], updateMulti: true, resourceKeys: [] },
    };
  }
  const config = isRecord(card['config']) ? card['config'] : {};
  const v2 = card['schema'] === '2.0';
  if (v2) {
    const body = card['body'];
    if (!isRecord(body) || !Array.isArray(body['elements'])) {
      return {
        ok: false,
        code: CARD_FAILED,
        msg: 'Failed to create card content, ext=body.elements is required',
      };
    }
  } else if (
    !Array.isArray(card['elements']) &&
    !isRecord(card['i18n_elements']) &&
    !isRecord(card['header'])
  ) {
    return { ok: false, code: CARD_FAILED, msg: 'Failed to create card content, ext=card has no elements' };
  }
  const lines: string[] = [];
  const buttons: CardButton[] = [];
  const keys: string[] = [];
  if (isRecord(card['header'])) walkCard(card['header'], lines, buttons, keys);
  walkCard(v2 ? card['body'] : (card['elements'] ?? card['i18n_elements']), lines, buttons, keys);
  return {
    ok: true,
    rendered: {
      text: lines.join('\n'),
      buttons,
      updateMulti: v2 ? config['update_multi'] !== false : config['update_multi'] === true,
      resourceKeys: keys,
    },
  };
}

function renderPostBody(post: Record<string, unknown>, keys: string[]): string | undefined {
  const content = post['content'];
  if (!Array.isArray(content)) return undefined;
  const lines: string[] = typeof post['title'] === 'string' && post['title'] !== '' ? [post['title']] : [];
  for (const paragraph of content) {
    if (!Array.isArray(paragraph)) return undefined;
    let line = '';
    for (const element of paragraph) {
      if (!isRecord(element)) return undefined;
      if (typeof element['text'] === 'string') line += element['text'];
      else if (element['tag'] === 'at')
        line += `@${String(element['user_name'] ?? element['user_id'] ?? '')}`;
      if (element['tag'] === 'img' && typeof element['image_key'] === 'string')
        keys.push(element['image_key']);
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/** A post is `{title, content}` under a language key (zh_cn, en_us…), optionally wrapped in `post`. */
function renderPost(value: Record<string, unknown>): ContentCheck {
  const unwrapped = isRecord(value['post']) ? value['post'] : value;
  const keys: string[] = [];
  const direct = renderPostBody(unwrapped, keys);
  if (direct !== undefined) {
    return { ok: true, rendered: { text: direct, buttons: [], updateMulti: false, resourceKeys: keys } };
  }
  for (const body of Object.values(unwrapped)) {
    if (!isRecord(body)) continue;
    const text = renderPostBody(body, keys);
    if (text !== undefined) {
      return { ok: true, rendered: { text, buttons: [], updateMulti: false, resourceKeys: keys } };
    }
  }
  return invalid('invalid post content');
}

const PLAIN_TYPES = new Set(['audio', 'media', 'sticker', 'share_chat', 'share_user', 'system']);

/** Parses and checks `content` for `msgType`; `bodyBytes` is the request body's length. */
export function checkContent(
  msgType: unknown,
  content: unknown,
  bodyBytes: number,
  limits: ContentLimits,
): ContentCheck {
  if (typeof msgType !== 'string' || msgType === '') return invalid('msg_type is required');
  if (typeof content !== 'string') return invalid('content is required');
  const cap = msgType === 'text' ? limits.textBytes : limits.cardBytes;
  if ((msgType === 'text' || msgType === 'post' || msgType === 'interactive') && bodyBytes > cap) {
    return { ok: false, code: TOO_LONG, msg: 'The length of the message content reaches its limit.' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return msgType === 'interactive'
      ? { ok: false, code: CARD_FAILED, msg: 'Failed to create card content, ext=content is not JSON' }
      : invalid('invalid message content');
  }
  if (!isRecord(parsed)) return invalid('invalid message content');
  switch (msgType) {
    case 'text': {
      const text = parsed['text'];
      if (typeof text !== 'string' || text.trim() === '') return invalid('text is empty');
      return { ok: true, rendered: { text, buttons: [], updateMulti: false, resourceKeys: [] } };
    }
    case 'post':
      return renderPost(parsed);
    case 'interactive':
      return renderCard(parsed);
    case 'image': {
      const key = parsed['image_key'];
      if (typeof key !== 'string' || key === '') return invalid('image_key is required');
      return {
        ok: true,
        rendered: { text: '[image]', buttons: [], updateMulti: false, resourceKeys: [key] },
      };
    }
    case 'file': {
      const key = parsed['file_key'];
      if (typeof key !== 'string' || key === '') return invalid('file_key is required');
      return { ok: true, rendered: { text: '[file]', buttons: [], updateMulti: false, resourceKeys: [key] } };
    }
    default:
      if (PLAIN_TYPES.has(msgType)) {
        return {
          ok: true,
          rendered: { text: `[${msgType}]`, buttons: [], updateMulti: false, resourceKeys: [] },
        };
      }
      return invalid('invalid msg_type');
  }
}
