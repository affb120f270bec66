import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createPermanentAllowlist } from '../../src/approval/allowlist.js';
import { appendToCommandAllowlist } from '../../src/approval/allowlist-file.js';
import { makeTempHome, silentLogger } from '../helpers/test-config.js';

describe('permanent allowlist matching', () => {
  const allowlist = createPermanentAllowlist({
    initial: ['recursive delete', 'podman *', 'git push --force origin main'],
    configPath: undefined,
    logger: silentLogger,
  });

  it('approves by finding key', () => {
    expect(allowlist.hasKey('recursive delete')).toBe(true);
    expect(allowlist.hasKey('git force push')).toBe(false);
  });

  it('approves exact commands and globs for non-compound commands', () => {
    expect(allowlist.matchesCommand('git push --force origin main', false)).toBe(true);
    expect(allowlist.matchesCommand('  git push  --force origin main ', false)).toBe(true);
    expect(allowlist.matchesCommand('git push --force origin dev', false)).toBe(false);
    expect(allowlist.matchesCommand('podman rm -f web', false)).toBe(true);
    expect(allowlist.matchesCommand('PODMAN rm -f web', false)).toBe(false);
  });

  it('never matches a compound command', () => {
    expect(allowlist.matchesCommand('podman ps; rm -rf ~', true)).toBe(false);
    expect(allowlist.matchesCommand('git push --force origin main', true)).toBe(false);
  });
});

describe('always write-back to config.yaml', () => {
  let home: string;
  let cleanup: () => void;
  let configPath: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome());
    configPath = join(home, 'config.yaml');
  });
  afterEach(() => cleanup());

  it('creates the file when it is missing (mode 0600)', async () => {
    const entries = await appendToCommandAllowlist(configPath, ['recursive delete']);
    expect(entries).toEqual(['recursive delete']);
    expect(parse(readFileSync(configPath, 'utf8'))).toEqual({ command_allowlist: ['recursive delete'] });
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
  });

  it('keeps comments, other keys, hand-added entries and does not resurrect removed ones', async () => {
    writeFileSync(
      configPath,
      [
        '# my gateway',
        'approvals:',
        '  mode: manual # ask me',
        'command_allowlist:',
        '  # reviewed 2024',
        '  - git force push',
        '  - chmod 777',
        '',
      ].join('\n'),
      { mode: 0o640 },
    );
    const allowlist = createPermanentAllowlist({
      initial: ['git force push', 'chmod 777'],
      configPath,
      logger: silentLogger,
    });

    // Meanwhile the operator edits the file by hand: adds one entry, removes another.
    writeFileSync(
      configPath,
      [
        '# my gateway',
        'approvals:',
        '  mode: manual # ask me',
        'command_allowlist:',
        '  # reviewed 2024',
        '  - git force push',
        '  - podman * # added by hand',
        '',
      ].join('\n'),
    );

    const result = await allowlist.add(['recursive delete']);
    expect(result).toEqual({ persisted: true, entries: ['git force push', 'podman *', 'recursive delete'] });
    const text = readFileSync(configPath, 'utf8');
    expect(text).toContain('# my gateway');
    expect(text).toContain('mode: manual # ask me');
    expect(text).toContain('# reviewed 2024');
    expect(text).toContain('# added by hand');
    expect(parse(text)).toEqual({
      approvals: { mode: 'manual' },
      command_allowlist: ['git force push', 'podman *', 'recursive delete'],
    });
    expect(statSync(configPath).mode & 0o777).toBe(0o640);
    // The in-process copy follows the file: the hand removal applies, the hand addition too.
    expect(allowlist.hasKey('chmod 777')).toBe(false);
    expect(allowlist.matchesCommand('podman ps', false)).toBe(true);
  });

  it('adds a list when the key is absent and skips entries already present', async () => {
    writeFileSync(configPath, '# only a comment\napprovals:\n  timeout: 60\n');
    await appendToCommandAllowlist(configPath, ['a', 'b', 'a']);
    await appendToCommandAllowlist(configPath, ['b', 'c']);
    const text = readFileSync(configPath, 'utf8');
    expect(text.startsWith('# only a comment')).toBe(true);
    expect(parse(text)).toEqual({ approvals: { timeout: 60 }, command_allowlist: ['a', 'b', 'c'] });
  });

  it('serialises concurrent saves without losing an entry', async () => {
    const allowlist = createPermanentAllowlist({ initial: [], configPath, logger: silentLogger });
    await Promise.all(['one', 'two', 'three', 'four'].map((entry) => allowlist.add([entry])));
    expect(parse(readFileSync(configPath, 'utf8'))).toEqual({
      command_allowlist: ['one', 'two', 'three', 'four'],
    });
  });

  it('refuses to rewrite a malformed file but keeps the approval in this process', async () => {
    writeFileSync(configPath, 'command_allowlist: [unclosed\n');
    const allowlist = createPermanentAllowlist({ initial: [], configPath, logger: silentLogger });
    const result = await allowlist.add(['recursive delete']);
    expect(result.persisted).toBe(false);
    expect(readFileSync(configPath, 'utf8')).toBe('command_allowlist: [unclosed\n');
    expect(allowlist.hasKey('recursive delete')).toBe(true);
  });

  it('sees an `always` saved by another process sharing the file, and hand edits, within refreshMs', async () => {
    writeFileSync(configPath, 'approvals:\n  mode: manual\n');
    let clock = 1_000;
    const now = () => clock;
    // The gateway that got the click, and a worker that runs the turns: one config.yaml.
    const gateway = createPermanentAllowlist({ initial: [], configPath, logger: silentLogger, now });
    const worker = createPermanentAllowlist({ initial: [], configPath, logger: silentLogger, now });
    expect(worker.hasKey('recursive delete')).toBe(false);

    expect((await gateway.add(['recursive delete', 'podman *'])).persisted).toBe(true);
    expect(worker.hasKey('recursive delete')).toBe(false); // looked less than refreshMs ago
    clock += 1_000;
    expect(worker.hasKey('recursive delete')).toBe(true);
    expect(worker.matchesCommand('podman ps', false)).toBe(true);

    // A hand edit removes one entry; a file caught half-edited changes nothing.
    writeFileSync(configPath, 'command_allowlist: [unclosed\n');
    clock += 1_000;
    expect(worker.hasKey('recursive delete')).toBe(true);
    writeFileSync(configPath, 'command_allowlist:\n  - podman *\n');
    clock += 1_000;
    expect(worker.hasKey('recursive delete')).toBe(false);
    expect(worker.matchesCommand('podman ps', false)).toBe(true);
    expect(gateway.entries()).toEqual(['podman *']);
  });

  it('keeps an entry whose save failed in this process across reloads', async () => {
    writeFileSync(configPath, 'command_allowlist: [unclosed\n');
    let clock = 0;
    const allowlist = createPermanentAllowlist({
      initial: [],
      configPath,
      logger: silentLogger,
      now: () => clock,
    });
    expect((await allowlist.add(['recursive delete'])).persisted).toBe(false);
    writeFileSync(configPath, 'command_allowlist:\n  - podman *\n');
    clock += 5_000;
    expect([...allowlist.entries()].sort()).toEqual(['podman *', 'recursive delete']);
  });

  it('refuses a command_allowlist that is not a list', async () => {
    writeFileSync(configPath, 'command_allowlist: rm\n');
    await expect(appendToCommandAllowlist(configPath, ['x'])).rejects.toMatchObject({
      code: 'config_invalid',
    });
  });
});
