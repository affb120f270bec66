import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MarkerWatch } from './marker-watch.js';
import { FINAL_ANSWER, markerName, roundMessage } from './round-text.js';
import { BENCH_USER, type RoundTripGateway } from './start-roundtrip-gateway.js';
import type { WallClock } from './wall-clock.js';

/** One round trip, in milliseconds from the moment the button press was injected. */
export interface RoundTripSample {
  /** …to the approved command starting (the `$EPOCHREALTIME` bash wrote as its first step). */
  readonly commandStartMs: number;
  /** …to the marker file being seen here through `fs.watch` (includes this event loop's lag). */
  readonly markerSeenMs: number;
  /** …to the press being answered by the control plane (`inject` resolved). */
  readonly pressAnsweredMs: number;
  /** The whole round: message in → final answer delivered. */
  readonly roundMs: number;
}

const STEP_TIMEOUT_MS = 30_000;

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Message → the fake model calls `terminal` with a flagged command → the turn parks and the
 * prompt appears (and is recorded) → "Allow once" is pressed through `adapter.inject` → the
 * command starts → the model's final answer is delivered. Each round uses its own chat (a fresh
 * session), so transcripts do not grow across rounds.
 */
export async function runRoundTrip(
  gw: RoundTripGateway,
  markers: MarkerWatch,
  clock: WallClock,
  round: string,
): Promise<RoundTripSample> {
  const { adapter, gateway } = gw;
  const chatId = `rt-${round}`;
  const roundStart = performance.now();
  const said = await adapter.say({ chatId, ...BENCH_USER, text: roundMessage(round) });
  if (said.status !== 'accepted') throw new Error(`round ${round}: message not accepted (${said.status})`);

  let messageId: string | undefined;
  await until(`the approval prompt of round ${round}`, () => {
    messageId = adapter.prompts.find((prompt) => prompt.to.chatId === chatId)?.messageId;
    return messageId !== undefined;
  });
  const shown = messageId ?? '';
  // The control plane records the prompt right after sending it; a press before that is "unknown".
  await until(
    `the prompt record of round ${round}`,
    async () => (await gateway.store.findActionPromptByMessage('test', chatId, shown)) !== undefined,
  );

  const press = adapter.click({ messageId: shown, ...BENCH_USER, label: '✅ Allow once' });
  const marker = markers.next(markerName(round), STEP_TIMEOUT_MS);
  clock.anchor();
  const pressedAt = clock.now();
  const answered = adapter.inject(press).then((result) => ({ result, at: clock.now() }));
  const seenAt = await marker;
  const { result, at: answeredAt } = await answered;
  if (result.status !== 'answered' || !('notice' in result) || !String(result.notice).startsWith('Done')) {
    throw new Error(`round ${round}: the press was not taken: ${JSON.stringify(result)}`);
  }
  await until(`the final answer of round ${round}`, () => adapter.texts(chatId).includes(FINAL_ANSWER));
  const roundMs = performance.now() - roundStart;

  const stamp = Number.parseFloat(readFileSync(join(gw.workdir, markerName(round)), 'utf8'));
  if (!Number.isFinite(stamp)) throw new Error(`round ${round}: the marker holds no timestamp`);
  return {
    commandStartMs: stamp * 1000 - pressedAt,
    markerSeenMs: seenAt - pressedAt,
    pressAnsweredMs: answeredAt - pressedAt,
    roundMs,
  };
}
