import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime, type ToolRuntime } from '../../src/app/create-tool-runtime.js';
import { makeTempHome, silentLogger, testConfig } from '../helpers/test-config.js';
import {
  field,
  fuzzRuns,
  fuzzTimeout,
  hostileText,
  maybeHugeText,
  startFuzzWatch,
  wrongValue,
} from './fuzz-kit.js';

/**
 * Tool arguments as a model might send them, through the registry's dispatch of the real
 * built-in tools: JSON text that is broken, deep or huge, values of every wrong kind, unknown
 * tool names. Tools whose valid arguments act outside a scratch directory (run a command, write a
 * file, call the network or the model) get only arguments their schema refuses; the others also
 * get their own parameter names with hostile values.
 */
const OUTSIDE_EFFECTS = new Set([
  'terminal',
  'process',
  'write_file',
  'patch',
  'delegate_task',
  'web_extract',
  'web_search',
  'vision_analyze',
]);

interface ToolCase {
  readonly name: string;
  readonly args: unknown;
}

/** Arguments any schema with a required parameter refuses (or, for the all-optional, ignores). */
const refusedArgs: fc.Arbitrary<unknown> = fc.oneof(
  wrongValue.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
  fc.dictionary(
    hostileText.filter((k) => !/^[a-z_]+$/.test(k)),
    wrongValue,
    { maxKeys: 4 },
  ),
  // As JSON text: broken, deep, huge.
  fc.oneof(
    hostileText,
    fc.integer({ min: 1_000, max: 100_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
    fc.integer({ min: 100_000, max: 2_000_000 }).map((n) => `{"z":"${'x'.repeat(n)}"}`),
  ),
);

describe('fuzz: tool arguments through the registry', () => {
  let temp: { home: string; cleanup: () => void };
  let workdir: string;
  let runtime: ToolRuntime;
  beforeAll(async () => {
    temp = makeTempHome('hermes-fuzz-tools-');
    workdir = mkdtempSync(join(tmpdir(), 'hermes-fuzz-work-'));
    runtime = await createToolRuntime({
      config: testConfig(temp.home, { TERMINAL_CWD: workdir }),
      logger: silentLogger,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
      builtinToolsDir: resolve(import.meta.dirname, '../../src/tools'),
    });
  });
  afterAll(async () => {
    await runtime?.close();
    temp?.cleanup();
    if (workdir !== undefined) rmSync(workdir, { recursive: true, force: true });
  });

  it(
    'every dispatch settles to a result the model can read, without throwing or stalling',
    async () => {
      const names = runtime.registry.names();
      const safe = names.filter((n) => !OUTSIDE_EFFECTS.has(n));
      const nearValid = fc.constantFrom(...safe).chain((name) => {
        const schema = runtime.registry.get(name)?.jsonSchema as { properties?: Record<string, unknown> };
        const keys = Object.keys(schema.properties ?? {});
        return fc
          .record(Object.fromEntries(keys.map((k) => [k, field(fc.oneof(hostileText, maybeHugeText))])))
          .map((args) => ({ name, args }));
      });
      const toolCase: fc.Arbitrary<ToolCase> = fc.oneof(
        { weight: 3, arbitrary: fc.record({ name: fc.constantFrom(...names), args: refusedArgs }) },
        { weight: 3, arbitrary: nearValid },
        { weight: 1, arbitrary: fc.record({ name: hostileText, args: wrongValue }) },
      );
      const call = (input: ToolCase, index: number) =>
        runtime.registry.dispatch(input.name, input.args, {
          sessionKey: `agent:main:fuzz:dm:${index % 7}`,
          taskId: `fuzz-${index}`,
          cwd: workdir,
          unattended: index % 2 === 0,
        });
      const watch = startFuzzWatch<ToolCase>();
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(toolCase, async (input) => {
          ran += 1;
          const result = await watch.time(input, () => call(input, ran));
          if (ran === 30) await watch.markBaseline();
          expect(['ok', 'error', 'paused']).toContain(result.kind);
          expect(typeof result.content).toBe('string');
          // What goes back to the model stays bounded, whatever came in.
          expect(result.content.length).toBeLessThan(200_000);
          if (!names.includes(input.name))
            expect(result).toMatchObject({ kind: 'error', code: 'unknown_tool' });
        }),
        { numRuns: fuzzRuns() },
      );
      await watch.finish((input) => call(input, 0));
    },
    fuzzTimeout(40),
  );
});
