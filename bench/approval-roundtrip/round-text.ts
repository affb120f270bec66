/** What the round-trip bench and its fake model agree on. */
export const TOOL_MODEL = 'bench-tool-model';
export const FINAL_ANSWER = 'Cleaned up the scratch folder.';

/** The user message of round `n`; the model finds the round with `ROUND_PATTERN`. */
export const roundMessage = (n: string) => `please clean up round-${n}`;
export const ROUND_PATTERN = /\bround-([a-z0-9]+)\b/;

/** The marker file a round's command writes first. */
export const markerName = (n: string) => `started-${n}`;

/**
 * The command of round `n`. The approval gate flags it (recursive delete) so the turn parks on a
 * prompt. Once allowed, the first thing bash does is write `$EPOCHREALTIME` (a builtin: no fork)
 * into the marker, so the file says when the approved command started, by the wall clock.
 */
export const commandFor = (n: string) => `echo $EPOCHREALTIME > ${markerName(n)}; rm -rf scratch-${n}`;
