import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_MAX_LINE_CHARS } from '../../src/tools/files/file-limits.js';
import { readFileTool } from '../../src/tools/read-file.js';
import {
  callTool,
  type FileToolKit,
  failure,
  fileGate,
  makeFileToolKit,
  parked,
} from './files/file-tool-kit.js';

let kit: FileToolKit;
beforeEach(() => {
  kit = makeFileToolKit();
});
afterEach(() => kit.cleanup());

const read = (args: { path: string; offset?: number; limit?: number }) =>
  callTool(readFileTool, args, kit.ctx());
const numbered = (count: number): string =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n');

describe('read_file: normal reads', () => {
  it('numbers the lines, aligned to the widest number, with no footer for a whole small file', async () => {
    kit.put('notes.txt', numbered(12) + '\n');
    const out = String(await read({ path: 'notes.txt' }));
    const lines = out.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe(' 1|line 1');
    expect(lines[11]).toBe('12|line 12');
  });

  it('pages long files and tells the model how to continue', async () => {
    kit.put('big.txt', numbered(1234) + '\n');
    const first = String(await read({ path: 'big.txt' }));
    expect(first.split('\n')).toHaveLength(501);
    expect(first).toContain('  1|line 1\n');
    expect(first).toMatch(
      /500\|line 500\n… showing lines 1-500 of 1234; use offset=501 to continue reading big\.txt$/,
    );

    const middle = String(await read({ path: 'big.txt', offset: 501, limit: 10 }));
    expect(middle.split('\n')[0]).toBe('501|line 501');
    expect(middle).toContain('showing lines 501-510 of 1234; use offset=511');

    const last = String(await read({ path: 'big.txt', offset: 1201 }));
    expect(last.split('\n')[0]).toBe('1201|line 1201');
    expect(last).toContain('1234|line 1234\n… showing lines 1201-1234 of 1234 (end of file)');
  });

  it('counts a last line without a trailing newline', async () => {
    kit.put('short.txt', 'a\nb\nc');
    const out = String(await read({ path: 'short.txt', offset: 2, limit: 1 }));
    expect(out).toBe('2|b\n… showing lines 2-2 of 3; use offset=3 to continue reading short.txt');
  });

  it('accepts absolute paths, and offset 0 as 1', async () => {
    const path = kit.put('abs.txt', 'x\ny\n');
    expect(await read({ path, offset: 0 })).toBe('1|x\n2|y');
  });

  it('drops CR of CRLF endings and a leading BOM', async () => {
    kit.put('win.txt', '\uFEFFfirst\r\nsecond\r\n');
    expect(await read({ path: 'win.txt' })).toBe('1|first\n2|second');
  });

  it('truncates very long lines with a marker', async () => {
    kit.put('long.txt', `short\n${'x'.repeat(READ_MAX_LINE_CHARS + 5000)}\nafter\n`);
    const out = String(await read({ path: 'long.txt' }));
    const [, long, after] = out.split('\n');
    expect(long).toMatch(/^2\|x+ … \[line truncated: 7000 bytes in full\]$/);
    expect(long?.length).toBeLessThan(READ_MAX_LINE_CHARS + 60);
    expect(after).toBe('3|after');
  });

  it('reports an empty file plainly', async () => {
    kit.put('empty.txt', '');
    expect(await read({ path: 'empty.txt' })).toMatch(/empty\.txt is empty/);
  });

  it.skipIf(process.platform !== 'linux')(
    'reads files whose reported size is 0 (/proc on Linux)',
    async () => {
      const out = String(await read({ path: '/proc/self/status', limit: 3 }));
      expect(out).toMatch(/^1\|Name:/);
    },
  );

  it('reads a window deep inside a large file', async () => {
    kit.put('huge.txt', numbered(200_000) + '\n');
    const out = String(await read({ path: 'huge.txt', offset: 150_000, limit: 3 }));
    expect(out.split('\n').slice(0, 3)).toEqual([
      '150000|line 150000',
      '150001|line 150001',
      '150002|line 150002',
    ]);
    expect(out).toContain('of 200000; use offset=150003');
  });

  it('stops early at the output size budget and says where to continue', async () => {
    const small = makeFileToolKit('tools:\n  max_result_chars: 5000\n');
    try {
      small.put('wide.txt', Array.from({ length: 400 }, (_, i) => `${i + 1} ${'w'.repeat(97)}`).join('\n'));
      const out = String(await callTool(readFileTool, { path: 'wide.txt' }, small.ctx()));
      expect(out.length).toBeLessThan(6000);
      expect(out).toMatch(
        /showing lines 1-(\d+) of 400 \(output size limit reached\); use offset=(\d+) to continue/,
      );
      const [, last, next] = /lines 1-(\d+) .*offset=(\d+)/.exec(out) ?? [];
      expect(Number(next)).toBe(Number(last) + 1);
    } finally {
      small.cleanup();
    }
  });

  it('is marked read-only and never spilled', () => {
    expect(readFileTool.readOnly).toBe(true);
    expect(readFileTool.maxResultChars).toBe(Number.POSITIVE_INFINITY);
    expect(readFileTool.toolset).toBe('file');
  });
});

describe('read_file: error paths', () => {
  it('suggests similar names when the file does not exist', async () => {
    kit.put('src/config.ts', 'x');
    kit.put('src/config.test.ts', 'x');
    const error = await failure(read({ path: 'src/confg.ts' }));
    expect(error.code).toBe('file_not_found');
    expect(error.message).toContain('File not found: src/confg.ts');
    expect(error.message).toContain('src/config.ts');
  });

  it('names the nearest existing directory when the directory is missing', async () => {
    kit.put('src/a.ts', 'x');
    const error = await failure(read({ path: 'src/nope/deeper/a.ts' }));
    expect(error.code).toBe('file_not_found');
    expect(error.message).toMatch(
      /directory src\/nope\/deeper does not exist; nearest existing directory: src\)/,
    );
  });

  it('points to search_files for a directory', async () => {
    mkdirSync(join(kit.cwd, 'src'));
    const error = await failure(read({ path: 'src' }));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toMatch(/is a directory.*search_files with target='files'/);
  });

  it('describes binary files by type and size instead of dumping them', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(2040, 7),
    ]);
    kit.put('pic.png', png);
    const error = await failure(read({ path: 'pic.png' }));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toContain('binary file (PNG image, 2.0 KB)');
    expect(error.message).toContain('vision_analyze');

    kit.put('blob.bin', Buffer.from('abc\0def'));
    expect((await failure(read({ path: 'blob.bin' }))).message).toContain('binary data, 7 bytes');

    kit.put('latin.bin', Buffer.from(Array.from({ length: 300 }, (_, i) => 0x80 + (i % 100))));
    expect((await failure(read({ path: 'latin.bin' }))).message).toContain('non-UTF-8 text encoding');
  });

  it('refuses an offset past the end of the file', async () => {
    kit.put('three.txt', 'a\nb\nc\n');
    const error = await failure(read({ path: 'three.txt', offset: 10 }));
    expect(error.code).toBe('file_bad_argument');
    expect(error.message).toContain('offset=10 is past the end of three.txt, which has 3 lines');
  });

  it('rejects a limit above 2000 and a negative offset at validation', () => {
    expect(readFileTool.parameters.safeParse({ path: 'a', limit: 2001 }).success).toBe(false);
    expect(readFileTool.parameters.safeParse({ path: 'a', offset: -1 }).success).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('refuses special files such as FIFOs', async () => {
    const fifo = join(kit.cwd, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const error = await failure(read({ path: 'pipe' }));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toContain('not a regular file');
  });

  it('refuses the gateway .env, also through ../ and symlinks', async () => {
    writeFileSync(join(kit.home, '.env'), 'TELEGRAM_BOT_TOKEN=tok-xyz-123\n');
    const direct = await failure(read({ path: join(kit.home, '.env') }));
    expect(direct.code).toBe('path_refused');
    expect(direct.message).not.toContain('tok-xyz');
    const dotted = await failure(read({ path: join(kit.home, 'sub', '..', '.env') }));
    expect(dotted.code).toBe('path_refused');
    symlinkSync(join(kit.home, '.env'), join(kit.cwd, 'innocent.txt'));
    expect((await failure(read({ path: 'innocent.txt' }))).code).toBe('path_refused');
    symlinkSync(kit.home, join(kit.cwd, 'homelink'));
    expect((await failure(read({ path: 'homelink/.env' }))).code).toBe('path_refused');
  });

  it('refuses config.yaml, state.db and its WAL/SHM, and .env.* variants', async () => {
    const files: Record<string, string> = {
      'config.yaml': 'api_server:\n  key: sk-config-secret\n',
      'state.db': 'SQLite format 3',
      'state.db-wal': 'transcript sk-wal-secret',
      'state.db-shm': 'x',
      '.env.local': 'OPENAI_API_KEY=sk-local-secret\n',
    };
    for (const [name, content] of Object.entries(files)) {
      writeFileSync(join(kit.home, name), content);
      const error = await failure(read({ path: join(kit.home, name) }));
      expect(error.code, name).toBe('path_refused');
      expect(error.message).not.toContain('sk-');
      expect(error.message).toContain('gateway');
    }
  });

  it('refuses a hard link to the gateway .env or config.yaml, wherever it is and whatever its name', async () => {
    writeFileSync(join(kit.home, '.env'), 'OPENAI_API_KEY=sk-hardlinked-secret\n');
    writeFileSync(join(kit.home, 'config.yaml'), 'api_server:\n  key: sk-config-secret\n');
    linkSync(join(kit.home, '.env'), join(kit.cwd, 'notes.txt'));
    linkSync(join(kit.home, 'config.yaml'), join(kit.cwd, 'settings.yml'));
    for (const path of ['notes.txt', 'settings.yml']) {
      const error = await failure(read({ path }));
      expect(error.code, path).toBe('path_refused');
      expect(error.message).toContain('same file');
      expect(error.message).not.toContain('sk-');
    }
    // A symlink to the hard link: resolved, then caught by its inode.
    symlinkSync(join(kit.cwd, 'notes.txt'), join(kit.cwd, 'pointer.txt'));
    expect((await failure(read({ path: 'pointer.txt' }))).code).toBe('path_refused');
  });

  it('reads an ordinary file that has other hard links (as package stores make them)', async () => {
    const original = kit.put('store/lib.js', 'export const lib = 1;\n');
    linkSync(original, join(kit.cwd, 'lib.js'));
    writeFileSync(join(kit.home, '.env'), 'OPENAI_API_KEY=sk-x\n');
    expect(await read({ path: 'lib.js' })).toBe('1|export const lib = 1;');
  });

  it('asks before reading a secret file of the user, and refuses it unattended', async () => {
    const key = kit.putHome('.ssh/id_ed25519', '-----BEGIN OPENSSH PRIVATE KEY-----\nkey-bytes\n');
    const gate = fileGate(kit.config);
    const attended = kit.ctx({ services: { approvalGate: gate.gate } });
    const request = await parked(callTool(readFileTool, { path: key }, attended));
    expect(request).toMatchObject({ action: 'file_read', command: 'read_file ~/.ssh/id_ed25519' });
    expect(request.findings.map((f) => f.key)).toEqual(['file read: ~/.ssh/id_ed25519']);
    const unattended = kit.ctx({ unattended: true, services: { approvalGate: gate.gate } });
    const refused = await failure(callTool(readFileTool, { path: key }, unattended));
    expect(refused.code).toBe('path_refused');
    expect(refused.message).toContain('unattended');
    expect(refused.message).not.toContain('key-bytes');
    // A hard link with an innocent name is the same file: it asks too.
    linkSync(key, join(kit.cwd, 'readme.txt'));
    const viaLink = await parked(callTool(readFileTool, { path: 'readme.txt' }, attended));
    expect(viaLink.findings[0]?.description).toContain('~/.ssh/id_ed25519');
    // After "allow once" the same read goes through, once.
    await gate.controller.decide(request.id, 'once', { userId: undefined });
    expect(
      await gate.controller.resume(request.id, { command: request.command, cwd: request.cwd }),
    ).toMatchObject({ kind: 'allow' });
    const revoke = gate.grant(request.sessionKey, request.commandHash, request.findings);
    expect(await callTool(readFileTool, { path: key }, attended)).toContain('key-bytes');
    revoke();
    expect((await parked(callTool(readFileTool, { path: key }, attended))).id).not.toBe(request.id);
  });

  it('reads other files of HERMES_HOME (logs, plugins) and public SSH files', async () => {
    mkdirSync(join(kit.home, 'logs'));
    writeFileSync(join(kit.home, 'logs', 'gateway.log'), 'started\n');
    expect(await read({ path: join(kit.home, 'logs', 'gateway.log') })).toBe('1|started');
    const pub = kit.putHome('.ssh/id_ed25519.pub', 'ssh-ed25519 AAAA me\n');
    expect(await read({ path: pub })).toBe('1|ssh-ed25519 AAAA me');
  });

  it.skipIf(process.platform !== 'linux')(
    'refuses process environments, which hold the gateway tokens',
    async () => {
      const error = await failure(read({ path: '/proc/self/environ' }));
      expect(error.code).toBe('path_refused');
      expect(error.message).toContain('environment');
    },
  );

  it('stops when the call is aborted', async () => {
    kit.put('a.txt', 'a\n');
    const controller = new AbortController();
    controller.abort(new Error('turn stopped'));
    const error = await failure(
      callTool(readFileTool, { path: 'a.txt' }, kit.ctx({ signal: controller.signal })),
    );
    expect(error.message).toBe('turn stopped');
  });
});
