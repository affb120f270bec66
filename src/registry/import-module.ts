import { pathToFileURL } from 'node:url';

/** How a module is imported by URL: `import()` by default. */
export type NativeImport = (url: string) => Promise<unknown>;

const TYPESCRIPT = /\.[mc]?ts$/;

/**
 * What Node answers for a TypeScript plugin it cannot load as it is: no TypeScript loader (the
 * compiled build runs without tsx), or a `.ts` file in a folder whose package.json does not say
 * `"type": "module"`, which tsx's process-wide ESM loader leaves to Node's CommonJS loader
 * untransformed: a require() cycle when it has `export`, a SyntaxError at its first type.
 */
const NEEDS_TSX = new Set(['ERR_UNKNOWN_FILE_EXTENSION', 'ERR_REQUIRE_CYCLE_MODULE']);

function needsTsx(error: unknown): boolean {
  return error instanceof SyntaxError || NEEDS_TSX.has(String((error as NodeJS.ErrnoException).code));
}

const nativeImport: NativeImport = (url) => import(url);

/**
 * Imports a module by its path. A TypeScript plugin that plain `import()` cannot load goes through
 * tsx's `tsImport`, which compiles the file and what it imports without installing a loader for
 * the whole process. So `.ts` and `.mts` plugins load whether the gateway runs its compiled build
 * or its sources, and whatever package.json their folder has.
 */
export async function importModule(
  file: string,
  load: NativeImport = nativeImport,
): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await load(url)) as Record<string, unknown>;
  } catch (error) {
    // A plugin that is truly broken fails again in tsx, with tsx's (TypeScript-aware) message.
    if (!TYPESCRIPT.test(file) || !needsTsx(error)) throw error;
    const { tsImport } = await import('tsx/esm/api');
    return esModuleExports((await tsImport(url, import.meta.url)) as Record<string, unknown>);
  }
}

/**
 * A `.ts` file outside a `"type": "module"` folder is compiled to CommonJS: its exports then sit on
 * the namespace's `default`, marked `__esModule` (the usual interop). Those are the module's exports.
 */
function esModuleExports(namespace: Record<string, unknown>): Record<string, unknown> {
  const inner = namespace['default'];
  if (
    typeof inner === 'object' &&
    inner !== null &&
    (inner as { __esModule?: unknown }).__esModule === true
  ) {
    return inner as Record<string, unknown>;
  }
  return namespace;
}
