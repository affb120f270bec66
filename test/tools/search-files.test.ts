import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchFilesTool } from '../../src/tools/search-files.js';
import { callTool, type FileToolKit, failure, makeFileToolKit } from './files/file-tool-kit.js';

const hasRipgrep = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;

let kit: FileToolKit;
beforeEach(() => {
  kit = makeFileToolKit();
  kit.put('README.md', '# Demo\nTODO: write docs\n');
  kit.put('src/app.ts', "import { util } from './util.js';\n// TODO wire up\nexport const app = util(1);\n");
  kit.put('src/util.ts', 'export function util(n: number) {\n  return n + 1; // todo later\n}\n');
  kit.put('src/deep/nested.test.ts', "it('works', () => {\n  // TODO more cases\n});\n");
  kit.put('docs/guide.md', 'Guide\n\nTODO: screenshots\n');
  kit.put('data.bin', Buffer.from('TODO\0binary'));
});
afterEach(() => kit.cleanup());

type SearchArgs = {
  pattern: string;
  target?: 'content' | 'files';
  path?: string;
  file_glob?: string;
  limit?: number;
  offset?: number;
  context?: number;
};

/** The built-in engine: ripgrep is switched off through the service, as an operator could. */
const builtIn = (args: SearchArgs) =>
  callTool(searchFilesTool, args, kit.ctx({ services: { ripgrepCommand: false } })).then(String);

describe('search_files (built-in search)', () => {
  it('finds content matches as path:line:text with totals', async () => {
    expect(await builtIn({ pattern: 'TODO' })).toBe(
      [
        'Found 4 matching lines in 4 files for "TODO" in the working directory:',
        'README.md:2:TODO: write docs',
        'docs/guide.md:3:TODO: screenshots',
        'src/app.ts:2:// TODO wire up',
        'src/deep/nested.test.ts:2:  // TODO more cases',
      ].join('\n'),
    );
  });

  it('pages with limit and offset and says how to get the next page', async () => {
    const first = await builtIn({ pattern: 'TODO', limit: 2 });
    expect(first).toContain(
      'Found 4 matching lines in 4 files for "TODO" in the working directory (showing 1-2):',
    );
    expect(first).toContain('… more results; use offset=2 to see the next page.');
    const second = await builtIn({ pattern: 'TODO', limit: 2, offset: 2 });
    expect(second).toContain('(showing 3-4)');
    expect(second).toContain('src/app.ts:2:');
    expect(second).not.toContain('more results');
  });

  it('filters by file_glob, searches a sub-directory or a single file', async () => {
    expect(await builtIn({ pattern: 'TODO', file_glob: '*.md' })).toContain(
      'Found 2 matching lines in 2 files',
    );
    const scoped = await builtIn({ pattern: 'TODO', path: 'src' });
    expect(scoped).toContain('src/app.ts:2:');
    expect(scoped).not.toContain('README');
    expect(await builtIn({ pattern: 'util', path: 'src/app.ts' })).toBe(
      [
        'Found 2 matching lines in 1 file for "util" in src/app.ts:',
        "src/app.ts:1:import { util } from './util.js';",
        'src/app.ts:3:export const app = util(1);',
      ].join('\n'),
    );
  });

  it('supports a leading (?i) flag group and shows context lines', async () => {
    expect(await builtIn({ pattern: '(?i)todo later', path: 'src' })).toContain('src/util.ts:2:');
    expect(await builtIn({ pattern: 'return', context: 1 })).toBe(
      [
        'Found 1 matching line in 1 file for "return" in the working directory:',
        'src/util.ts-1-export function util(n: number) {',
        'src/util.ts:2:  return n + 1; // todo later',
        'src/util.ts-3-}',
      ].join('\n'),
    );
  });

  it('skips node_modules, hidden entries and binary files', async () => {
    kit.put('node_modules/pkg/index.js', 'TODO in a dependency\n');
    kit.put('.cache/x.txt', 'TODO hidden\n');
    const out = await builtIn({ pattern: 'TODO' });
    expect(out).not.toContain('node_modules');
    expect(out).not.toContain('.cache');
    expect(out).not.toContain('data.bin');
  });

  it('lists files by glob: name globs match at any depth, path globs are anchored', async () => {
    expect(await builtIn({ pattern: '*.ts', target: 'files' })).toBe(
      [
        'Found 3 files matching "*.ts" in the working directory:',
        'src/app.ts',
        'src/deep/nested.test.ts',
        'src/util.ts',
      ].join('\n'),
    );
    expect(await builtIn({ pattern: 'src/*.ts', target: 'files' })).toContain('Found 2 files');
    expect(await builtIn({ pattern: '**/*.md', target: 'files' })).toContain('README.md\ndocs/guide.md');
    expect(await builtIn({ pattern: '*.{md,bin}', target: 'files' })).toContain('Found 3 files');
  });

  it('says plainly when nothing matches', async () => {
    expect(await builtIn({ pattern: 'no-such-text' })).toBe(
      'No matches for "no-such-text" in the working directory.',
    );
    expect(await builtIn({ pattern: '*.rs', target: 'files' })).toBe(
      'No files match "*.rs" in the working directory.',
    );
  });

  it('shows paths outside the working directory as absolute', async () => {
    writeFileSync(join(kit.home, 'notes.txt'), 'TODO outside\n');
    expect(await builtIn({ pattern: 'TODO', path: kit.home })).toContain(
      `${join(kit.home, 'notes.txt')}:1:TODO outside`,
    );
  });

  it('maps results under a symlinked directory back to the path the model used', async () => {
    symlinkSync(join(kit.cwd, 'src'), join(kit.cwd, 'code'));
    expect(await builtIn({ pattern: 'wire', path: 'code' })).toContain('code/app.ts:2:');
  });
});

describe('search_files error paths', () => {
  it('rejects an invalid regular expression with a clear message', async () => {
    const error = await failure(builtIn({ pattern: 'foo(' }));
    expect(error.code).toBe('search_failed');
    expect(error.message).toContain('Invalid regular expression "foo("');
    expect(error.message).toContain('escape them with a backslash');
  });

  it('rejects an unclosed brace in a glob', async () => {
    const error = await failure(builtIn({ pattern: '*.{ts', target: 'files' }));
    expect(error.code).toBe('search_failed');
  });

  it('reports a missing path with suggestions', async () => {
    const error = await failure(builtIn({ pattern: 'x', path: 'srcc' }));
    expect(error.code).toBe('file_not_found');
    expect(error.message).toContain('src');
  });

  it('refuses an offset past the last result', async () => {
    const error = await failure(builtIn({ pattern: 'TODO', offset: 10 }));
    expect(error.code).toBe('file_bad_argument');
    expect(error.message).toContain('there are 4');
  });

  it('refuses to search the gateway .env', async () => {
    writeFileSync(join(kit.home, '.env'), 'OPENAI_API_KEY=sk-test\n');
    const error = await failure(builtIn({ pattern: 'KEY', path: join(kit.home, '.env') }));
    expect(error.code).toBe('path_refused');
  });

  it('refuses a binary file named as the search root', async () => {
    const error = await failure(builtIn({ pattern: 'TODO', path: 'data.bin' }));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toContain('binary file');
  });

  it.skipIf(process.platform !== 'linux')('refuses process environments under /proc', async () => {
    const error = await failure(builtIn({ pattern: 'PATH', path: '/proc/self/environ' }));
    expect(error.code).toBe('path_refused');
  });

  it('stops when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('turn stopped'));
    const ctx = kit.ctx({ signal: controller.signal, services: { ripgrepCommand: false } });
    expect((await failure(callTool(searchFilesTool, { pattern: 'TODO' }, ctx))).message).toBe('turn stopped');
  });

  it('falls back to the built-in search when the ripgrep command does not exist', async () => {
    const ctx = kit.ctx({ services: { ripgrepCommand: 'rg-does-not-exist-here' } });
    expect(String(await callTool(searchFilesTool, { pattern: 'TODO' }, ctx))).toContain(
      'Found 4 matching lines',
    );
  });

  it('rejects a limit above 1000 at validation', () => {
    expect(searchFilesTool.parameters.safeParse({ pattern: 'x', limit: 1001 }).success).toBe(false);
  });
});

describe.skipIf(!hasRipgrep)('search_files through ripgrep (runs only when rg is on PATH)', () => {
  const viaRipgrep = (args: SearchArgs) =>
    callTool(searchFilesTool, args, kit.ctx({ services: { ripgrepCommand: 'rg' } })).then(String);

  it('gives exactly the built-in result for the same tree', async () => {
    const cases: SearchArgs[] = [
      { pattern: 'TODO' },
      { pattern: 'TODO', limit: 2, offset: 1 },
      { pattern: 'TODO', file_glob: '*.md' },
      { pattern: 'util', path: 'src/app.ts' },
      { pattern: 'return', context: 1 },
      { pattern: 'no-such-text' },
      { pattern: '*.ts', target: 'files' },
      { pattern: 'src/*.ts', target: 'files' },
      { pattern: '**/*.md', target: 'files' },
      { pattern: '*.{md,bin}', target: 'files', limit: 2 },
    ];
    for (const args of cases) {
      expect(await viaRipgrep(args), JSON.stringify(args)).toBe(await builtIn(args));
    }
  });

  it('respects .gitignore inside a git work tree', async () => {
    mkdirSync(join(kit.cwd, '.git'));
    writeFileSync(join(kit.cwd, '.gitignore'), 'docs/\n');
    const out = await viaRipgrep({ pattern: 'TODO' });
    expect(out).toContain('Found 3 matching lines');
    expect(out).not.toContain('docs/guide.md');
  });

  it('reports ripgrep regex errors clearly', async () => {
    const error = await failure(viaRipgrep({ pattern: 'foo(' }));
    expect(error.code).toBe('search_failed');
    expect(error.message).toContain('Invalid regular expression "foo("');
    expect(error.message).toContain('unclosed group');
  });
});

describe('search_files never shows protected files', () => {
  const SECRET = 'sk-linked-0123456789';
  const withEngine = (ripgrepCommand: string | false, args: SearchArgs) =>
    callTool(searchFilesTool, args, kit.ctx({ services: { ripgrepCommand } })).then(String);

  /** A hard link to the gateway .env and one to config.yaml, under innocent names in the workspace. */
  function linkSecrets(): void {
    writeFileSync(join(kit.home, '.env'), `OPENAI_API_KEY=${SECRET}\nTODO_TOKEN=${SECRET}\n`);
    writeFileSync(join(kit.home, 'config.yaml'), `api_server:\n  key: ${SECRET} # TODO\n`);
    linkSync(join(kit.home, '.env'), join(kit.cwd, 'notes.txt'));
    linkSync(join(kit.home, 'config.yaml'), join(kit.cwd, 'src', 'settings.yml'));
  }

  it('skips hard links to the gateway secrets (built-in search), content and names', async () => {
    linkSecrets();
    const content = await withEngine(false, { pattern: 'TODO|KEY|sk-' });
    expect(content).not.toContain(SECRET);
    expect(content).not.toContain('notes.txt');
    expect(content).toContain('Found 4 matching lines in 4 files');
    const withContext = await withEngine(false, { pattern: 'TODO', context: 3 });
    expect(withContext).not.toContain(SECRET);
    const names = await withEngine(false, { pattern: '*', target: 'files' });
    expect(names).not.toContain('notes.txt');
    expect(names).not.toContain('settings.yml');
  });

  it('refuses a hard link to a secret as the search root', async () => {
    linkSecrets();
    const error = await failure(withEngine(false, { pattern: 'KEY', path: 'notes.txt' }));
    expect(error.code).toBe('path_refused');
    expect(error.message).not.toContain(SECRET);
  });

  it('searching HERMES_HOME itself shows logs but never config.yaml, .env or the state database', async () => {
    writeFileSync(join(kit.home, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
    writeFileSync(join(kit.home, 'config.yaml'), `api_server:\n  key: ${SECRET}\n`);
    writeFileSync(join(kit.home, 'state.db-wal'), `user said ${SECRET}\n`);
    mkdirSync(join(kit.home, 'logs'));
    writeFileSync(join(kit.home, 'logs', 'gateway.log'), 'key rotated\n');
    for (const engine of [false, ...(hasRipgrep ? ['rg'] : [])] as const) {
      const out = await withEngine(engine, { pattern: 'key|sk-', path: kit.home });
      expect(out, String(engine)).not.toContain(SECRET);
      expect(out).toContain('gateway.log:1:key rotated');
      const names = await withEngine(engine, { pattern: '*', target: 'files', path: kit.home });
      expect(names).not.toContain('config.yaml');
      expect(names).not.toContain('state.db');
    }
  });

  it('skips secret files of the user and refuses them as a root', async () => {
    const key = kit.putHome('.ssh/id_ed25519', `-----BEGIN KEY-----\n${SECRET}\n`);
    kit.putHome('.ssh/known_hosts', 'github.com ssh-ed25519 AAAA\n');
    const out = await withEngine(false, { pattern: '.', path: join(kit.userHome, '.ssh') });
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('id_ed25519');
    expect(out).toContain('known_hosts:1:');
    const error = await failure(withEngine(false, { pattern: 'KEY', path: key }));
    expect(error.code).toBe('path_refused');
    expect(error.message).toContain('read_file');
  });

  it('drops what ripgrep reports from a protected file (protocol-level fake ripgrep)', async () => {
    linkSecrets();
    // Reports what a real ripgrep finds when it reads the hard link: the secret lines.
    const events = [
      { path: './notes.txt', text: `OPENAI_API_KEY=${SECRET}\n`, line: 1 },
      { path: './README.md', text: 'TODO: write docs\n', line: 2 },
      { path: './src/settings.yml', text: `  key: ${SECRET} # TODO\n`, line: 2 },
    ].map((hit) =>
      JSON.stringify({
        type: 'match',
        data: { path: { text: hit.path }, lines: { text: hit.text }, line_number: hit.line },
      }),
    );
    const fake = join(kit.userHome, 'fake-rg');
    writeFileSync(fake, `#!/bin/sh\ncat <<'EOF'\n${events.join('\n')}\nEOF\n`);
    chmodSync(fake, 0o755);
    const out = await withEngine(fake, { pattern: 'TODO|KEY', context: 1 });
    expect(out).not.toContain(SECRET);
    expect(out).toContain('Found 1 matching line in 1 file');
    expect(out).toContain('README.md:2:TODO: write docs');
  });

  it.skipIf(!hasRipgrep)('skips hard links to the gateway secrets through a real ripgrep', async () => {
    linkSecrets();
    const out = await withEngine('rg', { pattern: 'TODO|KEY|sk-', context: 2 });
    expect(out).not.toContain(SECRET);
    expect(out).toContain('Found 4 matching lines in 4 files');
    const names = await withEngine('rg', { pattern: '*', target: 'files' });
    expect(names).not.toContain('settings.yml');
  });
});
