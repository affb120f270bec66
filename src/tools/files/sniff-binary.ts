/** How many leading bytes are inspected to decide whether a file is text. */
export const SNIFF_BYTES = 8192;

interface Signature {
  readonly offset: number;
  readonly bytes: readonly number[];
  readonly kind: string;
}

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

/** Magic numbers of common binary formats, so the model is told what the file is. */
const SIGNATURES: readonly Signature[] = [
  { offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47], kind: 'PNG image' },
  { offset: 0, bytes: [0xff, 0xd8, 0xff], kind: 'JPEG image' },
  { offset: 0, bytes: ascii('GIF8'), kind: 'GIF image' },
  { offset: 8, bytes: ascii('WEBP'), kind: 'WebP image' },
  { offset: 0, bytes: ascii('%PDF-'), kind: 'PDF document' },
  { offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'ZIP archive (or docx/xlsx/jar)' },
  { offset: 0, bytes: [0x1f, 0x8b], kind: 'gzip archive' },
  { offset: 0, bytes: ascii('BZh'), kind: 'bzip2 archive' },
  { offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], kind: 'xz archive' },
  { offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: '7-Zip archive' },
  { offset: 257, bytes: ascii('ustar'), kind: 'tar archive' },
  { offset: 0, bytes: [0x7f, 0x45, 0x4c, 0x46], kind: 'ELF executable' },
  { offset: 0, bytes: [0xcf, 0xfa, 0xed, 0xfe], kind: 'Mach-O executable' },
  { offset: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], kind: 'Mach-O or Java class file' },
  { offset: 0, bytes: ascii('MZ'), kind: 'Windows executable' },
  { offset: 0, bytes: [0x00, 0x61, 0x73, 0x6d], kind: 'WebAssembly module' },
  { offset: 0, bytes: ascii('SQLite format 3'), kind: 'SQLite database' },
  { offset: 0, bytes: ascii('ID3'), kind: 'MP3 audio' },
  { offset: 4, bytes: ascii('ftyp'), kind: 'MP4/QuickTime media' },
  { offset: 0, bytes: [0xff, 0xfe], kind: 'UTF-16 text (only UTF-8 is supported)' },
  { offset: 0, bytes: [0xfe, 0xff], kind: 'UTF-16 text (only UTF-8 is supported)' },
];

function hasSignature(sample: Uint8Array, signature: Signature): boolean {
  if (sample.length < signature.offset + signature.bytes.length) return false;
  return signature.bytes.every((byte, index) => sample[signature.offset + index] === byte);
}

/** Drops a UTF-8 sequence cut off at the end of the sample, so it is not counted as invalid. */
function trimPartialSequence(sample: Uint8Array): Uint8Array {
  for (let back = 1; back <= Math.min(3, sample.length); back += 1) {
    const byte = sample[sample.length - back] ?? 0;
    if ((byte & 0xc0) !== 0x80) {
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      return needed > back ? sample.subarray(0, sample.length - back) : sample;
    }
  }
  return sample;
}

/**
 * Decides from the first bytes of a file whether it is binary. Returns a short description of
 * the content (`PNG image`, `binary data`, …) for binary files and undefined for text.
 * Text means: no NUL byte, mostly valid UTF-8, and few control characters.
 */
export function sniffBinary(sample: Uint8Array): string | undefined {
  if (sample.length === 0) return undefined;
  const known = SIGNATURES.find((signature) => hasSignature(sample, signature));
  // `MZ` and `ID3` are two or three printable letters; trust them only alongside other evidence.
  const weak = known !== undefined && (known.kind === 'Windows executable' || known.kind === 'MP3 audio');
  if (known !== undefined && !weak) return known.kind;
  if (sample.includes(0)) return known?.kind ?? 'binary data';
  const text = new TextDecoder('utf-8').decode(trimPartialSequence(sample));
  let invalid = 0;
  let control = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0xfffd) invalid += 1;
    else if (
      code < 0x20 &&
      code !== 0x09 &&
      code !== 0x0a &&
      code !== 0x0d &&
      code !== 0x0c &&
      code !== 0x1b
    ) {
      control += 1;
    }
  }
  const length = Math.max(1, text.length);
  if (invalid / length > 0.1) return known?.kind ?? 'binary data or a non-UTF-8 text encoding';
  if (control / length > 0.1) return known?.kind ?? 'binary data';
  return undefined;
}
