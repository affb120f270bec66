import type { ExecBackend } from '../../../approval/approval-types.js';
import type { TerminalBackend } from './backend-types.js';
import { dockerBackend } from './docker.js';
import { localBackend } from './local.js';
import { sshBackend } from './ssh.js';

/** The backend picked by `terminal.backend` (TERMINAL_ENV). */
export function selectBackend(name: ExecBackend): TerminalBackend {
  switch (name) {
    case 'docker':
      return dockerBackend;
    case 'ssh':
      return sshBackend;
    default:
      return localBackend;
  }
}
