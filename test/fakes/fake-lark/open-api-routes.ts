import { type ApiAnswer, type ApiRequest, fieldInvalid, larkError, ok, stringField } from './api-answer.js';
import {
  addReaction,
  createMessage,
  deleteReaction,
  getMessage,
  getResource,
  type ImContext,
  patchMessage,
  replyMessage,
  updateMessage,
  uploadImage,
} from './im-routes.js';
import type { LarkRoute } from './lark-state.js';

export interface FakeLarkBot {
  readonly openId: string;
  readonly name: string;
}

export interface OpenApiContext extends ImContext {
  readonly appSecret: string;
  readonly bot: FakeLarkBot;
  /** Answers `POST /callback/ws/endpoint` (the long-connection discovery). */
  readonly wsEndpoint: (req: ApiRequest) => ApiAnswer;
}

interface Matched {
  readonly route: LarkRoute;
  readonly params: readonly string[];
}

const ROUTES: readonly { method: string; pattern: RegExp; route: LarkRoute }[] = [
  {
    method: 'POST',
    pattern: /^\/open-apis\/auth\/v3\/tenant_access_token\/internal$/,
    route: 'auth.tenant_access_token',
  },
  { method: 'POST', pattern: /^\/callback\/ws\/endpoint$/, route: 'ws.endpoint' },
  { method: 'POST', pattern: /^\/open-apis\/im\/v1\/messages$/, route: 'im.message.create' },
  { method: 'POST', pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/, route: 'im.message.reply' },
  { method: 'PATCH', pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)$/, route: 'im.message.patch' },
  { method: 'PUT', pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)$/, route: 'im.message.update' },
  { method: 'GET', pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)$/, route: 'im.message.get' },
  {
    method: 'GET',
    pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/,
    route: 'im.message.resource',
  },
  { method: 'POST', pattern: /^\/open-apis\/im\/v1\/images$/, route: 'im.image.create' },
  {
    method: 'POST',
    pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reactions$/,
    route: 'im.reaction.create',
  },
  {
    method: 'DELETE',
    pattern: /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reactions\/([^/]+)$/,
    route: 'im.reaction.delete',
  },
  { method: 'GET', pattern: /^\/open-apis\/bot\/v3\/info\/?$/, route: 'bot.info' },
  {
    method: 'GET',
    pattern: /^\/open-apis\/docx\/v1\/documents\/([^/]+)\/raw_content$/,
    route: 'docx.raw_content',
  },
  { method: 'GET', pattern: /^\/open-apis\/wiki\/v2\/spaces\/get_node$/, route: 'wiki.get_node' },
];

export function matchRoute(method: string, path: string): Matched {
  for (const candidate of ROUTES) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (match !== null) return { route: candidate.route, params: match.slice(1).map(decodeURIComponent) };
  }
  return { route: 'unknown', params: [] };
}

/** Routes that do not take a tenant token. */
export const UNAUTHENTICATED: ReadonlySet<LarkRoute> = new Set(['auth.tenant_access_token', 'ws.endpoint']);

/** 99991661 without a bearer token, 99991663 with an unknown, revoked or expired one (HTTP 400). */
export function checkAuth(ctx: OpenApiContext, req: ApiRequest): ApiAnswer | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer (\S+)$/.exec(header) : null;
  if (match === null) {
    return larkError(
      400,
      99991661,
      'Missing access token for authorization. Please make a request with token attached.',
    );
  }
  if (!ctx.state.tokenValid(match[1] ?? '')) {
    return larkError(
      400,
      99991663,
      'Invalid access token for authorization. Please make a request with token attached.',
    );
  }
  return undefined;
}

function tenantToken(ctx: OpenApiContext, req: ApiRequest): ApiAnswer {
  if (stringField(req.body, 'app_id') !== ctx.appId) return larkError(400, 10003, 'invalid param');
  if (stringField(req.body, 'app_secret') !== ctx.appSecret)
    return larkError(400, 10014, 'app secret invalid');
  const { token, expire } = ctx.state.issueToken();
  return { kind: 'json', status: 200, body: { code: 0, msg: 'ok', tenant_access_token: token, expire } };
}

function botInfo(ctx: OpenApiContext): ApiAnswer {
  return {
    kind: 'json',
    status: 200,
    body: {
      code: 0,
      msg: 'ok',
      bot: {
        activate_status: 2,
        app_name: ctx.bot.name,
        avatar_url: 'https://example.invalid/avatar.png',
        ip_white_list: [],
        open_id: ctx.bot.openId,
      },
    },
  };
}

function rawContent(ctx: OpenApiContext, documentId: string): ApiAnswer {
  const document = ctx.state.documents.get(documentId);
  if (document === undefined) return larkError(404, 1770002, 'not found');
  if (document.forbidden) return larkError(403, 1770032, 'forbidden');
  return ok({ content: document.content });
}

function wikiNode(ctx: OpenApiContext, req: ApiRequest): ApiAnswer {
  const token = req.query.get('token') ?? '';
  if (token === '') return fieldInvalid('token is required');
  const objType = req.query.get('obj_type') ?? 'wiki';
  const node = [...ctx.state.wikiNodes.values()].find((n) =>
    objType === 'wiki' ? n.nodeToken === token : n.objToken === token && n.objType === objType,
  );
  if (node === undefined) return larkError(400, 131005, 'not found');
  const created = String(Math.floor(ctx.state.now() / 1000));
  return ok({
    node: {
      space_id: node.spaceId,
      node_token: node.nodeToken,
      obj_token: node.objToken,
      obj_type: node.objType,
      parent_node_token: '',
      node_type: 'origin',
      origin_node_token: node.nodeToken,
      origin_space_id: node.spaceId,
      has_child: false,
      title: node.title,
      obj_create_time: created,
      obj_edit_time: created,
      node_create_time: created,
      creator: ctx.bot.openId,
      owner: ctx.bot.openId,
    },
  });
}

/** Answers a request already matched, authenticated and past any planned failure. */
export async function answerRoute(
  ctx: OpenApiContext,
  req: ApiRequest,
  matched: Matched,
): Promise<ApiAnswer> {
  const [first = '', second = ''] = matched.params;
  switch (matched.route) {
    case 'auth.tenant_access_token':
      return tenantToken(ctx, req);
    case 'ws.endpoint':
      return ctx.wsEndpoint(req);
    case 'im.message.create':
      return createMessage(ctx, req);
    case 'im.message.reply':
      return replyMessage(ctx, req, first);
    case 'im.message.patch':
      return patchMessage(ctx, req, first);
    case 'im.message.update':
      return updateMessage(ctx, req, first);
    case 'im.message.get':
      return getMessage(ctx, first);
    case 'im.message.resource':
      return getResource(ctx, req, first, second);
    case 'im.image.create':
      return uploadImage(ctx, req);
    case 'im.reaction.create':
      return addReaction(ctx, req, first);
    case 'im.reaction.delete':
      return deleteReaction(ctx, first, second);
    case 'bot.info':
      return botInfo(ctx);
    case 'docx.raw_content':
      return rawContent(ctx, first);
    case 'wiki.get_node':
      return wikiNode(ctx, req);
    case 'unknown':
      return { kind: 'raw', status: 404, body: '404 page not found' };
  }
}
