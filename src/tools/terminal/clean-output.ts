/** CSI / OSC / other escape sequences and stray C1 controls that a terminal would interpret. */
const ANSI =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[@-Z\\-_]|[\u0080-\u009f]/g;

/**
 * Makes command output safe to hand to the model: terminal escape sequences removed (so they are
 * never copied into files) and any known secret value replaced by `[redacted]`.
 */
export function cleanOutput(text: string, secrets: readonly string[]): string {
  let out = text.replace(ANSI, '');
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}
