/** HTTP helpers for the Runs API tests: JSON calls and a Server-Sent Events reader over fetch. */

export interface SseEvent {
  readonly id: number;
  readonly event: string;
  readonly data: Record<string, unknown>;
}

export function runsApi(baseURL: string, apiKey?: string) {
  const auth: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  async function call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const response = await fetch(`${baseURL}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      headers: response.headers,
    };
  }

  /**
   * Reads a run's event stream until it closes, or until `stopWhen` holds for an event (then the
   * connection is dropped, as a client that goes away would).
   */
  async function events(
    runId: string,
    options: { lastEventId?: number; stopWhen?: (event: SseEvent) => boolean; timeoutMs?: number } = {},
  ): Promise<{ events: SseEvent[]; closedByServer: boolean }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 15_000);
    const response = await fetch(`${baseURL}/runs/${runId}/events`, {
      headers: {
        ...auth,
        accept: 'text/event-stream',
        ...(options.lastEventId !== undefined ? { 'last-event-id': String(options.lastEventId) } : {}),
      },
      signal: controller.signal,
    });
    if (response.status !== 200 || response.body === null) {
      clearTimeout(timer);
      throw new Error(`events: HTTP ${response.status}`);
    }
    const seen: SseEvent[] = [];
    let stopped = false;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let split = buffer.indexOf('\n\n');
        while (split >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          split = buffer.indexOf('\n\n');
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
          }
          if (!fields.has('data')) continue;
          const event: SseEvent = {
            id: Number(fields.get('id')),
            event: fields.get('event') ?? 'message',
            data: JSON.parse(fields.get('data') ?? '{}') as Record<string, unknown>,
          };
          seen.push(event);
          if (options.stopWhen?.(event) === true) {
            stopped = true;
            break;
          }
        }
        if (stopped) break;
      }
      if (stopped) controller.abort();
      return { events: seen, closedByServer: !stopped };
    } catch (error) {
      if (stopped) return { events: seen, closedByServer: false };
      if (controller.signal.aborted)
        throw new Error(`events: no end within the time limit (${seen.length} seen)`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  return { call, events };
}
