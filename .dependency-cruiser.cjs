/**
 * Who may import whom (shared/DESIGN.md, "Who may import whom"), checked by `npm run boundaries`
 * (part of `npm test`). Type-only imports count (`tsPreCompilationDeps`): a type is a dependency
 * too. The source folders, lowest first:
 *
 *   errors/   imports nothing of ours
 *   config/   imports nothing of ours but errors (config_invalid is thrown as a HermesError)
 *   lib/      small generic helpers: errors and lib only
 *   logging/  lib, config, errors
 *   registry/ approval/  no gateway, platform or tool code
 *   tools/    no gateway or platform code (a tool gets its context passed in)
 *   platforms/  the contract (platforms/*.ts: adapter, ingress, platform), platforms/shared/, config,
 *               lib, errors — and its own folder; never the gateway, tools, or another platform
 *   gateway/  registry, approval and the platform contract (platforms/*.ts), never a platform
 *             folder; of tools only the types of the services it gives them (swc, which parses for
 *             this check, does not tell type-only imports apart, so that part is by review)
 *   app/ cli/ main.ts cli.ts   the composition root: anything; nothing imports it
 *
 * And no cycles between folders.
 */
const SRC = '^src/';
const OURS = `${SRC}`;

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders depend on each other one way only (data flows adapter → ingress → queue → turn → delivery).',
      scope: 'folder',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'errors-import-nothing',
      severity: 'error',
      from: { path: `${SRC}errors/` },
      to: { path: OURS, pathNot: `${SRC}errors/` },
    },
    {
      name: 'config-imports-nothing-of-ours',
      severity: 'error',
      comment: 'Everything reads the config; it reads nothing of ours (HermesError aside).',
      from: { path: `${SRC}config/` },
      to: { path: OURS, pathNot: `${SRC}(config|errors)/` },
    },
    {
      name: 'lib-is-generic',
      severity: 'error',
      from: { path: `${SRC}lib/` },
      to: { path: OURS, pathNot: `${SRC}(lib|errors)/` },
    },
    {
      name: 'logging-is-low',
      severity: 'error',
      from: { path: `${SRC}logging/` },
      to: { path: OURS, pathNot: `${SRC}(logging|lib|config|errors)/` },
    },
    {
      name: 'registry-imports-no-gateway-platform-or-tool-code',
      severity: 'error',
      comment: 'Discovery registers the tools; the registry never names them, nor who runs them.',
      from: { path: `${SRC}registry/` },
      to: { path: `${SRC}(gateway|platforms|tools|app|cli)/|${SRC}(main|cli)\\.ts$` },
    },
    {
      name: 'approval-imports-no-gateway-platform-or-tool-code',
      severity: 'error',
      from: { path: `${SRC}approval/` },
      to: { path: `${SRC}(gateway|platforms|tools|app|cli)/|${SRC}(main|cli)\\.ts$` },
    },
    {
      name: 'tools-import-no-gateway-or-platform-code',
      severity: 'error',
      comment: 'A tool gets its context passed in (ToolServices).',
      from: { path: `${SRC}tools/` },
      to: { path: `${SRC}(gateway|platforms|app|cli)/|${SRC}(main|cli)\\.ts$` },
    },
    {
      name: 'platforms-import-only-the-contract-ingress-config-and-lib',
      severity: 'error',
      from: { path: `${SRC}platforms/` },
      to: { path: OURS, pathNot: `${SRC}(platforms|config|lib|errors)/` },
    },
    {
      name: 'a-platform-imports-no-other-platform',
      severity: 'error',
      comment: 'A platform folder uses the contract (platforms/*.ts), platforms/shared/ and its own files.',
      from: { path: `${SRC}platforms/([^/]+)/` },
      to: { path: `${SRC}platforms/[^/]+/`, pathNot: `${SRC}platforms/($1|shared)/` },
    },
    {
      name: 'the-platform-contract-names-no-platform',
      severity: 'error',
      from: { path: `${SRC}platforms/[^/]+\\.ts$` },
      to: { path: `${SRC}platforms/[^/]+/` },
    },
    {
      name: 'gateway-imports-only-the-platform-contract',
      severity: 'error',
      comment: 'The gateway knows platforms through the contract; the composition root builds them.',
      from: { path: `${SRC}gateway/` },
      to: { path: `${SRC}platforms/[^/]+/|${SRC}(app|cli)/|${SRC}(main|cli)\\.ts$` },
    },
    {
      name: 'nothing-imports-the-composition-root',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}(app|cli)/|${SRC}(main|cli)\\.ts$` },
      to: { path: `${SRC}(app|cli)/|${SRC}(main|cli)\\.ts$` },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import of ours that resolves to nothing would hide a dependency from these rules.',
      from: { path: SRC },
      to: { couldNotResolve: true, path: '^\\.' },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API: swc parses the sources, type-only imports included.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
