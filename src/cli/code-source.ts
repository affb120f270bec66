/**
 * Which code the process runs, as bin/hermes-gateway decided: the compiled build in dist/, or the
 * TypeScript sources through tsx because dist/ is missing or was built from other sources.
 */
export type CodeSource =
  | { readonly code: 'compiled' }
  | { readonly code: 'sources'; readonly reason: string };

/** One line for the banner and `doctor`. */
export function codeSourceText(source: CodeSource): string {
  return source.code === 'compiled'
    ? 'compiled build (dist/)'
    : `TypeScript sources through tsx: ${source.reason}`;
}
