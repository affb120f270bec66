/**
 * Thrown by a handler that cannot finish until something outside the turn happens (a human
 * approving a command). `dispatch` turns it into a `paused` result carrying the payload, so the
 * turn runner can park the turn instead of holding a worker.
 */
export class ToolPause extends Error {
  readonly reason: string;
  readonly payload: unknown;
  /** What the model would see if the turn cannot be parked (e.g. a one-shot CLI run). */
  readonly modelMessage: string;

  constructor(reason: string, payload: unknown, modelMessage: string) {
    super(`tool paused: ${reason}`);
    this.name = 'ToolPause';
    this.reason = reason;
    this.payload = payload;
    this.modelMessage = modelMessage;
  }
}
