import type { Config } from '../../config/config-schema.js';
import { secretValues } from '../../config/mask-secrets.js';
import { redactText } from '../../registry/sanitize-tool-error.js';

/** Characters of a command shown in a command reply (the prompt shows the full preview). */
const SHOWN_COMMAND_CHARS = 80;

/** A command on one line, shortened, with known secrets and token shapes redacted. */
export function shortCommand(command: string, config: Config): string {
  const line = redactText(command, secretValues(config)).replace(/\s+/g, ' ').trim();
  return line.length <= SHOWN_COMMAND_CHARS ? line : `${line.slice(0, SHOWN_COMMAND_CHARS - 1)}…`;
}

/** `1 message`, `3 messages`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A rough, human duration: `45 s`, `4 min`, `2 h`. */
export function roughDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/** Thousands separators without depending on the host locale. */
export function formatCount(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
