/** The fixed answer of the bench's fake model, and the model name every client uses. */
export const FAKE_ANSWER = 'Hello from the zero-latency bench model.';
export const FAKE_MODEL = 'bench-model';
