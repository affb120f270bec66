import { describe, expect, it } from 'vitest';
import { applySudoPassword } from '../../../src/tools/terminal/sudo-password.js';

describe('applySudoPassword', () => {
  it('leaves commands alone without a password', () => {
    expect(applySudoPassword('sudo ls', undefined)).toEqual({ command: 'sudo ls', input: undefined });
  });

  it('rewrites sudo at command positions and feeds the password once', () => {
    const plan = applySudoPassword('sudo apt-get update && sudo apt-get install -y jq; echo sudo', 'pw123');
    expect(plan.command).toBe(
      "sudo -S -p '' apt-get update && sudo -S -p '' apt-get install -y jq; echo sudo",
    );
    expect(plan.input).toBe('pw123\n');
  });

  it('does not touch words that merely contain sudo', () => {
    expect(applySudoPassword('echo pseudo; sudoku', 'pw')).toEqual({
      command: 'echo pseudo; sudoku',
      input: undefined,
    });
  });

  it('handles subshells and pipes', () => {
    expect(applySudoPassword('x=$(sudo cat /f) | (sudo id)', 'pw').command).toBe(
      "x=$(sudo -S -p '' cat /f) | (sudo -S -p '' id)",
    );
  });
});
