import { describe, expect, it } from 'vitest';
import { commandSegments } from '../../src/approval/detect.js';
import { usesSudoStdin } from '../../src/approval/sudo-guard.js';

describe('usesSudoStdin on raw text (no segments from the detector)', () => {
  it.each([
    ['sudo -S apt install x', true],
    ['echo pw | sudo -S whoami', true],
    ['sudo -kS true', true],
    ['sudo --stdin ls', true],
    ['sudo -u root -S ls', true],
    ['/usr/bin/sudo -S ls', true],
    ['env LANG=C sudo -S ls', true],
    ['nohup sudo -S ls', true],
    ['ls; sudo -S reboot', true],
    ['x && sudo -S id', true],
    ['$(sudo -S id)', true],
    ['sudo ls', false],
    ['sudo -s', false],
    ['sudo -u S ls', false],
    ['sudo -- -S', false],
    ['ls -S', false],
    ['echo sudo -S', false],
  ])('%j → %s', (command, expected) => {
    expect(usesSudoStdin(command, [])).toBe(expected);
  });
});

describe('usesSudoStdin with the detector’s command segments', () => {
  it.each([
    ['echo pw | sudo -S apt update', true],
    ['env A=1 sudo -k -S id', true],
    ['bash -c "sudo -S id"', true],
    ['git commit -m "explain; sudo -S is refused"', false],
    ['echo "sudo -S whoami"', false],
    ['sudo -u admin ls', false],
  ])('%j → %s', (command, expected) => {
    expect(usesSudoStdin(command, commandSegments(command))).toBe(expected);
  });
});

describe('usesSudoStdin reads sudo long options as sudo does (unambiguous prefixes, values)', () => {
  it.each([
    ['sudo --user root -S ls', true],
    ['sudo --prompt x -S ls', true],
    ['sudo --std ls', true],
    ['sudo --stdi ls', true],
    ['sudo -u root --st ls', true],
    ['sudo --us root -S ls', true],
    ['sudo --user S ls', false],
    ['sudo --s ls', false],
  ])('%j → %s', (command, expected) => {
    expect(usesSudoStdin(command, commandSegments(command))).toBe(expected);
    expect(usesSudoStdin(command, [])).toBe(expected);
  });
});
