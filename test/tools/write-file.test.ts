import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WRITE_MAX_BYTES } from '../../src/tools/files/file-limits.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { callTool, type FileToolKit, failure, makeFileToolKit } from './files/file-tool-kit.js';

let kit: FileToolKit;
beforeEach(() => {
  kit = makeFileToolKit();
});
afterEach(() => kit.cleanup());

const write = (path: string, content: string) => callTool(writeFileTool, { path, content }, kit.ctx());

describe('write_file: normal writes', () => {
  it('creates a file and its missing parent directories', async () => {
    expect(await write('a/b/c.txt', 'hello ✓\n')).toBe('Created a/b/c.txt (10 bytes).');
    expect(readFileSync(join(kit.cwd, 'a/b/c.txt'), 'utf8')).toBe('hello ✓\n');
  });

  it('overwrites an existing file, keeps its mode and leaves no temp file behind', async () => {
    const path = kit.put('run.sh', 'old content');
    chmodSync(path, 0o750);
    expect(await write('run.sh', '#!/bin/sh\n')).toBe('Overwrote run.sh (10 bytes; was 11 bytes).');
    expect(readFileSync(path, 'utf8')).toBe('#!/bin/sh\n');
    expect(statSync(path).mode & 0o777).toBe(0o750);
    expect(readdirSync(kit.cwd)).toEqual(['run.sh']);
  });

  it('writes through a symlink to its target and keeps the link', async () => {
    const real = kit.put('real.txt', 'before');
    symlinkSync(real, join(kit.cwd, 'link.txt'));
    await write('link.txt', 'after');
    expect(lstatSync(join(kit.cwd, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('after');
  });

  it('writes an empty file', async () => {
    expect(await write('empty.txt', '')).toBe('Created empty.txt (0 bytes).');
  });
});

describe('write_file: error paths', () => {
  it('refuses the gateway .env, config.yaml and state.db*', async () => {
    for (const name of ['.env', 'config.yaml', 'state.db', 'state.db-wal', 'state.db-shm']) {
      const error = await failure(write(join(kit.home, name), 'x'));
      expect(error.code, name).toBe('path_refused');
      expect(error.message).toContain('Refusing to write');
    }
    expect(readdirSync(kit.home)).toEqual([]);
    // Other files in HERMES_HOME are fine.
    await write(join(kit.home, 'notes.md'), 'ok');
  });

  it('cannot be tricked by ../, symlinked files, symlinked directories or dangling links', async () => {
    writeFileSync(join(kit.home, 'config.yaml'), 'model: {}\n');
    expect((await failure(write(join(kit.home, 'x', '..', 'config.yaml'), 'x'))).code).toBe('path_refused');
    symlinkSync(join(kit.home, 'config.yaml'), join(kit.cwd, 'settings.yaml'));
    expect((await failure(write('settings.yaml', 'x'))).code).toBe('path_refused');
    symlinkSync(kit.home, join(kit.cwd, 'dir-link'));
    expect((await failure(write('dir-link/.env', 'x'))).code).toBe('path_refused');
    expect((await failure(write('dir-link/sub/../state.db', 'x'))).code).toBe('path_refused');
    symlinkSync(join(kit.home, '.env'), join(kit.cwd, 'dangling'));
    expect((await failure(write('dangling', 'TOKEN=x'))).code).toBe('path_refused');
    expect(readdirSync(kit.home).sort()).toEqual(['config.yaml']);
    expect(readFileSync(join(kit.home, 'config.yaml'), 'utf8')).toBe('model: {}\n');
  });

  it('refuses credential files of the user', async () => {
    const error = await failure(write(join(homedir(), '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA'));
    expect(error.code).toBe('path_refused');
    expect(error.message).toContain('credentials directory');
  });

  it('refuses content above the size limit', async () => {
    const error = await failure(write('big.txt', 'x'.repeat(WRITE_MAX_BYTES + 1)));
    expect(error.code).toBe('file_bad_argument');
    expect(error.message).toContain('above the 10.0 MB write_file limit');
  });

  it('refuses to replace a directory', async () => {
    mkdirSync(join(kit.cwd, 'src'));
    const error = await failure(write('src', 'x'));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toContain('src is a directory');
  });

  it('explains when a parent path component is a file', async () => {
    kit.put('notes', 'a file');
    const error = await failure(write('notes/today.md', 'x'));
    expect(error.code).toBe('file_unsupported');
    expect(error.message).toContain('notes exists and is not a directory');
  });

  it('rejects an empty path', async () => {
    const error = await failure(write('  ', 'x'));
    expect(error.code).toBe('file_bad_argument');
  });
});
