/** The image formats vision models accept, recognised by their first bytes (never by name or header). */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const SUPPORTED_IMAGE_TYPES = 'PNG, JPEG, GIF or WebP';

/** Bytes needed to recognise every supported format. */
export const MAGIC_BYTES = 12;

export function detectImageType(bytes: Uint8Array): ImageMime | undefined {
  const startsWith = (signature: readonly number[], offset = 0) =>
    signature.every((byte, index) => bytes[offset + index] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return 'image/gif';
  }
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}
