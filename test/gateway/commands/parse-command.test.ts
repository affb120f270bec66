import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, COMMANDS, commandSpec } from '../../../src/gateway/commands/command-table.js';
import { parseCommand, resolveCommand } from '../../../src/gateway/commands/parse-command.js';

describe('parseCommand', () => {
  it('reads name and arguments, case-insensitively, with a @botname suffix', () => {
    expect(parseCommand('/approve session all')).toEqual({
      kind: 'command',
      name: 'approve',
      args: 'session all',
    });
    expect(parseCommand('/STATUS')).toEqual({ kind: 'command', name: 'status', args: '' });
    expect(parseCommand('/deny@hermes_bot  too risky  ')).toEqual({
      kind: 'command',
      name: 'deny',
      args: 'too risky',
    });
    expect(parseCommand('  /queue\nline one\nline two')).toEqual({
      kind: 'command',
      name: 'queue',
      args: 'line one\nline two',
    });
  });

  it('leaves a command addressed to another bot alone when the bot name is known', () => {
    expect(parseCommand('/stop@other_bot', '/', { botName: 'hermes_bot' })).toBeUndefined();
    expect(parseCommand('/stop@Hermes_Bot', '/', { botName: '@hermes_bot' })).toMatchObject({ name: 'stop' });
  });

  it('accepts aliases and unambiguous prefixes', () => {
    expect(parseCommand('/reset')).toMatchObject({ kind: 'command', name: 'new' });
    expect(parseCommand('/q do this later')).toMatchObject({
      kind: 'command',
      name: 'queue',
      args: 'do this later',
    });
    expect(parseCommand('/appr')).toMatchObject({ kind: 'command', name: 'approve' });
    expect(parseCommand('/mod gpt-4o')).toMatchObject({ kind: 'command', name: 'model', args: 'gpt-4o' });
    expect(parseCommand('/sto')).toMatchObject({ kind: 'command', name: 'stop' });
    expect(parseCommand('/start')).toMatchObject({ kind: 'command', name: 'help' });
  });

  it('lists the candidates of an ambiguous prefix', () => {
    const parsed = parseCommand('/s');
    expect(parsed).toMatchObject({ kind: 'ambiguous', candidates: ['sethome', 'status', 'stop'] });
    expect(parsed?.kind === 'ambiguous' && parsed.hint).toBe(
      '/s could mean /sethome, /status or /stop — type a few more letters.',
    );
    expect(parseCommand('/st')).toMatchObject({ kind: 'ambiguous', candidates: ['status', 'stop'] });
  });

  it('answers an unknown command with a short hint', () => {
    const parsed = parseCommand('/xyzzy now');
    expect(parsed).toMatchObject({ kind: 'unknown', name: 'xyzzy', args: 'now' });
    expect(parsed?.kind === 'unknown' && parsed.hint).toBe('Unknown command /xyzzy — try /help');
  });

  it('is not a command without the prefix, for a bare prefix, or for a path', () => {
    for (const text of ['yes', 'ok', 'approve', '/', '/ approve', '/etc/hosts is broken', '/123', '']) {
      expect(parseCommand(text), text).toBeUndefined();
    }
  });

  it('honours another prefix', () => {
    expect(parseCommand('!stop', '!')).toMatchObject({ name: 'stop' });
    expect(parseCommand('/stop', '!')).toBeUndefined();
    expect(resolveCommand('zz', '', '!')).toMatchObject({ hint: 'Unknown command !zz — try !help' });
  });
});

describe('the command table', () => {
  it('has one entry per name, in a form every platform menu accepts', () => {
    expect(COMMANDS.map((command) => command.name).sort()).toEqual([...COMMAND_NAMES].sort());
    for (const command of COMMANDS) {
      expect(command.name).toMatch(/^[a-z0-9_]{1,32}$/);
      expect(command.description.length).toBeGreaterThan(3);
      expect(command.description.length).toBeLessThanOrEqual(256);
      expect(command.usage.startsWith(`/${command.name}`)).toBe(true);
    }
    const aliases = COMMANDS.flatMap((command) => command.aliases);
    expect(new Set(aliases).size).toBe(aliases.length);
    for (const alias of aliases) expect(COMMAND_NAMES).not.toContain(alias);
  });

  it('lets /stop, /approve, /deny, /status and /new bypass a running turn', () => {
    for (const name of ['stop', 'approve', 'deny', 'status', 'new'] as const) {
      expect(commandSpec(name).bypassesQueue, name).toBe(true);
    }
    expect(commandSpec('model').bypassesQueue).toBe(false);
    expect(commandSpec('pair').adminOnly).toBe(true);
  });
});
