/** Limits of the file tools, in one place (documented in docs/tools-files.md). */

/** read_file: lines returned when the model gives no limit, and the most it may ask for. */
export const READ_DEFAULT_LIMIT = 500;
export const READ_MAX_LIMIT = 2000;
/** read_file: characters kept of one line; the rest is replaced by a marker. */
export const READ_MAX_LINE_CHARS = 2000;
/** read_file: bytes scanned at most to count a file's lines for the paging footer. */
export const READ_MAX_COUNT_BYTES = 256 * 1024 * 1024;

/** write_file: largest content accepted, in bytes (UTF-8). */
export const WRITE_MAX_BYTES = 10 * 1024 * 1024;
/** patch: largest file edited, in bytes. */
export const PATCH_MAX_BYTES = 10 * 1024 * 1024;

/** search_files: milliseconds one search may run, and the page size (default and maximum). */
export const SEARCH_TIMEOUT_MS = 30_000;
export const SEARCH_DEFAULT_LIMIT = 50;
export const SEARCH_MAX_LIMIT = 1000;
