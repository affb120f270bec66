import type { Readable } from 'node:stream';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

/** As many codings as undici's fetch accepts on one response (a guard against decoder bombs). */
const MAX_CODINGS = 5;

/**
 * The decoders for a `content-encoding` header value, outermost coding last (as sent), or
 * undefined when any coding is one we do not decode — the body is then passed on as it came,
 * which is what fetch does too. Flushing after every chunk keeps compressed SSE streaming.
 */
export function contentDecoders(contentEncoding: string): Transform[] | undefined {
  const codings = contentEncoding.toLowerCase().split(',');
  if (codings.length > MAX_CODINGS) return undefined;
  const decoders: Transform[] = [];
  for (let i = codings.length - 1; i >= 0; i -= 1) {
    const coding = codings[i]?.trim();
    if (coding === 'gzip' || coding === 'x-gzip') {
      decoders.push(zlib.createGunzip(ZLIB_FLUSH));
    } else if (coding === 'deflate') {
      decoders.push(new InflateEither());
    } else if (coding === 'br') {
      decoders.push(zlib.createBrotliDecompress(BROTLI_FLUSH));
    } else if (coding !== 'identity' && coding !== '') {
      return undefined;
    }
  }
  return decoders;
}

const ZLIB_FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** `deflate` as servers really send it: zlib-wrapped (RFC 1950) or raw (RFC 1951), told apart by the first byte. */
class InflateEither extends Transform {
  #inner: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#inner === undefined) {
      if (chunk.length === 0) {
        callback();
        return;
      }
      const inner =
        ((chunk[0] ?? 0) & 0x0f) === 0x08
          ? zlib.createInflate(ZLIB_FLUSH)
          : zlib.createInflateRaw(ZLIB_FLUSH);
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (error: Error) => this.destroy(error));
      this.#inner = inner;
    }
    this.#inner.write(chunk, callback);
  }

  override _flush(callback: TransformCallback): void {
    const inner = this.#inner;
    if (inner === undefined) {
      callback();
      return;
    }
    inner.once('end', () => callback());
    inner.end();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.#inner?.destroy();
    callback(error);
  }
}

/**
 * A web `ReadableStream` over a Node stream, with fetch's error semantics: it streams chunks as
 * they arrive (back-pressure pauses the source), an abort of `signal` errors it with the signal's
 * reason (also after the last byte arrived but before it was read, as fetch does), and any other
 * failure surfaces as `TypeError('terminated')` with the cause attached. `decoders` sit between
 * the source and the stream.
 */
export function toResponseBody(
  source: Readable,
  decoders: readonly Transform[],
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const output: Readable =
    decoders.length === 0
      ? source
      : (pipeline([source, ...decoders], () => undefined) as unknown as Readable);
  let settled = false;
  let ended = false;
  let onAbort: (() => void) | undefined;
  const finish = (): boolean => {
    if (settled) return false;
    settled = true;
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    return true;
  };
  const destroyAll = (reason?: unknown): void => {
    const error = reason instanceof Error ? reason : undefined;
    source.destroy(error);
    for (const decoder of decoders) decoder.destroy(error);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      output.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) output.pause();
      });
      output.once('end', () => {
        // Closed only once the reader has taken what is queued: until then an abort still errors it.
        ended = true;
        if ((controller.desiredSize ?? 0) > 0 && finish()) controller.close();
      });
      output.on('error', (error: Error) => {
        if (!finish()) return;
        controller.error(
          signal?.aborted ? abortReason(signal) : new TypeError('terminated', { cause: error }),
        );
      });
      if (signal !== undefined) {
        onAbort = () => {
          if (!finish()) return;
          const reason = abortReason(signal);
          controller.error(reason);
          destroyAll(reason);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    },
    pull(controller) {
      if (!ended) output.resume();
      else if (finish()) controller.close();
    },
    cancel() {
      if (finish()) destroyAll();
    },
  });
}

/** What fetch rejects with on abort: the signal's reason, or an `AbortError` when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
