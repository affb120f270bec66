// Types for source-fingerprint.mjs (plain JavaScript so the executable can use it before any loader).
export interface SourceFingerprint {
  /** Quick check: file count, total size, newest file or folder mtime. */
  readonly summary: { readonly files: number; readonly bytes: number; readonly newestMtimeMs: number };
  /** Exact check: sha256 over every input's path and content. */
  readonly digest: string;
}

export type DistStatus = { readonly current: true } | { readonly current: false; readonly reason: string };

export const BUILD_INFO: string;
export function sourceFingerprint(root: string): SourceFingerprint;
export function distStatus(root: string): DistStatus;
