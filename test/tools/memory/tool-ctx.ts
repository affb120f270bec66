import type { ToolServices } from '../../../src/registry/tool-services.js';
import type { ToolContext } from '../../../src/registry/tool-types.js';

export interface ToolCtxOptions {
  readonly sessionKey?: string;
  readonly userId?: string | undefined;
  readonly platform?: string | undefined;
}

/** A handler context as the registry would build it, for calling a tool handler directly. */
export function toolCtx(services: ToolServices, options: ToolCtxOptions = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionKey: options.sessionKey ?? 'agent:main:telegram:dm:42',
    taskId: 'task-1',
    cwd: '/',
    userId: 'userId' in options ? options.userId : '42',
    platform: 'platform' in options ? options.platform : 'telegram',
    unattended: false,
    toolCallId: 'call-1',
    services,
  };
}
