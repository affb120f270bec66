import type { SecretScrubber } from '../../registry/secret-scrubber.js';

/** CSI / OSC / other escape sequences and stray C1 controls that a terminal would interpret. */
const ANSI =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[@-Z\\-_]|[\u0080-\u009f]/g;

/**
 * Makes command output safe to hand to the model: terminal escape sequences removed (so they are
 * never copied into files) and every known secret value, in any of the spellings the scrubber
 * knows (base64, hex, URL-encoded, wrapped), replaced by `[redacted]`.
 */
export function cleanOutput(text: string, secrets: SecretScrubber): string {
  return secrets.scrub(text.replace(ANSI, ''));
}
