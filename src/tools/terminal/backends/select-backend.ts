import type { ExecBackend } from '../../../approval/approval-types.js';
import type { TerminalBackend, TerminalConfig } from './backend-types.js';
import { dockerBackend } from './docker.js';
import { localBackend } from './local.js';
import { sandboxBackend } from './sandbox.js';
import { sshBackend } from './ssh.js';

/** The implementation of a backend name. */
export function selectBackend(name: ExecBackend): TerminalBackend {
  switch (name) {
    case 'docker':
      return dockerBackend;
    case 'ssh':
      return sshBackend;
    case 'sandbox':
      return sandboxBackend;
    default:
      return localBackend;
  }
}

export interface BackendChoice {
  readonly name: ExecBackend;
  /** Why this session gets it, for doctor, /readyz and error messages. */
  readonly why: string;
}

/**
 * Where a session's commands run. Chats (someone can answer an approval): `terminal.backend`.
 * Unattended sessions (API server, webhooks, delegated tasks): `terminal.unattended_backend`,
 * whose `auto` means the sandbox unless `terminal.backend` sends commands elsewhere already
 * (docker, ssh).
 */
export function sessionBackend(terminal: TerminalConfig, unattended: boolean): BackendChoice {
  if (!unattended) {
    return { name: terminal.backend, why: 'attended sessions use terminal.backend' };
  }
  const chosen = terminal.unattended_backend;
  if (chosen !== 'auto') return { name: chosen, why: `terminal.unattended_backend: ${chosen}` };
  if (terminal.backend === 'docker' || terminal.backend === 'ssh') {
    return {
      name: terminal.backend,
      why: `unattended sessions follow terminal.backend: ${terminal.backend}`,
    };
  }
  return {
    name: 'sandbox',
    why: 'unattended sessions run sandboxed by default (terminal.unattended_backend: auto)',
  };
}
