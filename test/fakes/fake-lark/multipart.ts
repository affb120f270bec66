/** One part of a multipart/form-data body. */
export interface FormPart {
  readonly name: string;
  readonly fileName: string | undefined;
  readonly contentType: string | undefined;
  readonly data: Buffer;
}

/**
 * Splits a multipart/form-data body into its parts, bytes kept as they are (the SDK sends file
 * parts without a filename, which `Request.formData()` would read as text).
 */
export function parseMultipart(contentType: string, body: Buffer): FormPart[] | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (marker === undefined) return undefined;
  const delimiter = Buffer.from(`--${marker}`);
  const parts: FormPart[] = [];
  let start = body.indexOf(delimiter);
  if (start < 0) return undefined;
  for (;;) {
    start += delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') return parts;
    start += 2; // CRLF after the delimiter
    const next = body.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const part = body.subarray(start, next - 2); // CRLF before the next delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return undefined;
    const head = part.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) return undefined;
    parts.push({
      name,
      fileName: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
      contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim(),
      data: part.subarray(split + 4),
    });
    start = next;
  }
}
