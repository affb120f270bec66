import type { ToolServices } from '../../registry/tool-services.js';
import type { BackendCheck, BackendHost } from './backends/backend-types.js';
import { type BackendChoice, selectBackend, sessionBackend } from './backends/select-backend.js';
import { childEnv } from './scrub-env.js';
import type {} from './terminal-services.js';

export interface Placement extends BackendChoice, BackendCheck {}

/**
 * Where a session's commands run and whether they can run there now. For unattended sessions
 * that would run sandboxed, an unusable sandbox makes the terminal unavailable (never a silent
 * fall back to `local`); the reason says how to fix it or to opt out explicitly.
 */
export function terminalPlacement(services: ToolServices, unattended: boolean): Placement {
  const terminal = services.config.terminal;
  const choice = sessionBackend(terminal, unattended);
  const backend = selectBackend(choice.name);
  const host: BackendHost = { hermesHome: services.config.home, owner: services };
  const { env } = childEnv(services.baseEnv, terminal.env_passthrough, backend.clientEnvNames);
  const check = backend.check(terminal, env, host);
  if (check.ok) return { ...choice, ok: true };
  const optOut =
    unattended && choice.name === 'sandbox' && terminal.unattended_backend === 'auto'
      ? '; unattended sessions never fall back to an unsandboxed terminal on their own: fix the sandbox, or set terminal.unattended_backend: local to run their commands unsandboxed'
      : '';
  return { ...choice, ok: false, reason: `${check.reason ?? 'backend unusable'}${optOut}` };
}

/** Which sessions get which backend, and why: one line each, for doctor and /readyz. */
export function placementSummary(services: ToolServices): string[] {
  const terminal = services.config.terminal;
  const lines: string[] = [];
  const chat = terminalPlacement(services, false);
  lines.push(
    `chats (telegram, discord, feishu): ${chat.name} — ${chat.why}${chat.ok ? '' : ` — unavailable: ${chat.reason}`}`,
  );
  const unattended = terminalPlacement(services, true);
  lines.push(
    `unattended (api_server, webhooks, delegated tasks): ${unattended.name} — ${unattended.why}${unattended.ok ? '' : ` — unavailable: ${unattended.reason}`}`,
  );
  if (terminal.approved_backend === 'local' && (chat.name === 'sandbox' || unattended.name === 'sandbox')) {
    lines.push('commands a person approved in chat: local — terminal.approved_backend: local');
  }
  return lines;
}
