import { describe, expect, it } from 'vitest';
import { createPermanentAllowlist } from '../../src/approval/allowlist.js';
import type { DetectResult, Finding } from '../../src/approval/approval-types.js';
import {
  type DangerousInput,
  dangerousStep,
  floorDecision,
  type PolicySettings,
} from '../../src/approval/policy.js';
import { silentLogger } from '../helpers/test-config.js';

const SETTINGS: PolicySettings = {
  mode: 'manual',
  yolo: false,
  unattendedMode: 'deny',
  denyRules: ['git push --force*'],
  sudoPasswordConfigured: false,
};
const HARDLINE: Finding = {
  key: 'recursive delete of root filesystem',
  description: 'recursive delete of root filesystem',
  tier: 'hardline',
};
const DELETE: Finding = { key: 'recursive delete', description: 'recursive delete', tier: 'dangerous' };
const CHMOD: Finding = {
  key: 'world-writable permissions',
  description: 'world-writable permissions',
  tier: 'dangerous',
};

const safe: DetectResult = { verdict: 'safe', findings: [] };
const dangerous: DetectResult = { verdict: 'dangerous', findings: [DELETE] };
const hardline: DetectResult = { verdict: 'hardline', findings: [HARDLINE] };

describe('floorDecision', () => {
  it('refuses hardline findings first, whatever else applies', () => {
    const decision = floorDecision('sudo -S rm -rf /', hardline, ['sudo -S rm -rf /'], SETTINGS);
    expect(decision).toMatchObject({ kind: 'deny', reason: 'hardline', findings: [HARDLINE] });
    expect(decision?.kind === 'deny' && decision.message).toContain('recursive delete of root filesystem');
  });

  it('refuses sudo -S without a configured password, allows it with one', () => {
    expect(floorDecision('sudo -S ls', safe, ['sudo -S ls'], SETTINGS)).toMatchObject({
      reason: 'sudo_guard',
    });
    expect(
      floorDecision('sudo -S ls', safe, ['sudo -S ls'], { ...SETTINGS, sudoPasswordConfigured: true }),
    ).toBeUndefined();
  });

  it('refuses deny-rule matches, naming the rule', () => {
    const decision = floorDecision('git push --force', safe, ['git push --force'], SETTINGS);
    expect(decision).toMatchObject({ kind: 'deny', reason: 'deny_rule' });
    expect(decision?.kind === 'deny' && decision.message).toContain("'git push --force*'");
  });

  it('passes everything else', () => {
    expect(floorDecision('rm -rf build', dangerous, ['rm -rf build'], SETTINGS)).toBeUndefined();
  });
});

describe('dangerousStep', () => {
  const allowlist = createPermanentAllowlist({
    initial: ['world-writable permissions', 'rm -rf build', 'make *'],
    configPath: undefined,
    logger: silentLogger,
  });
  const base: DangerousInput = {
    command: 'rm -rf dist',
    findings: [DELETE],
    compound: false,
    backend: 'local',
    unattended: false,
    platform: 'telegram',
    sessionYolo: false,
    sessionGrants: new Set(),
    allowlist,
    settings: SETTINGS,
  };

  it('asks a human by default', () => {
    expect(dangerousStep(base)).toEqual({ kind: 'human', findings: [DELETE] });
  });

  it('skips the dangerous tier on docker only', () => {
    expect(dangerousStep({ ...base, backend: 'docker' })).toMatchObject({
      kind: 'allow',
      reason: 'container',
    });
    expect(dangerousStep({ ...base, backend: 'ssh' })).toMatchObject({ kind: 'human' });
  });

  it('allows in yolo (process or session) and in mode off', () => {
    expect(dangerousStep({ ...base, settings: { ...SETTINGS, yolo: true } })).toMatchObject({
      reason: 'yolo',
    });
    expect(dangerousStep({ ...base, sessionYolo: true })).toMatchObject({ reason: 'yolo' });
    expect(dangerousStep({ ...base, settings: { ...SETTINGS, mode: 'off' } })).toMatchObject({
      reason: 'mode_off',
    });
  });

  it('allows by allowlisted key, exact command and glob; globs never cover compound commands', () => {
    expect(dangerousStep({ ...base, findings: [CHMOD] })).toMatchObject({
      kind: 'allow',
      reason: 'allowlist',
    });
    expect(dangerousStep({ ...base, command: 'rm -rf build' })).toMatchObject({ reason: 'allowlist' });
    expect(dangerousStep({ ...base, command: 'make clean' })).toMatchObject({ reason: 'allowlist' });
    expect(dangerousStep({ ...base, command: 'make clean && rm -rf /srv', compound: true })).toMatchObject({
      kind: 'human',
    });
  });

  it('allows findings granted for the session, and asks only about the rest', () => {
    expect(dangerousStep({ ...base, sessionGrants: new Set(['recursive delete']) })).toMatchObject({
      kind: 'allow',
      reason: 'session_approved',
    });
    const other: Finding = { key: 'git force push', description: 'git force push', tier: 'dangerous' };
    expect(
      dangerousStep({
        ...base,
        findings: [DELETE, CHMOD, other],
        sessionGrants: new Set(['recursive delete']),
      }),
    ).toEqual({ kind: 'human', findings: [other] });
  });

  it('refuses in unattended sessions unless unattended_mode is approve', () => {
    const denied = dangerousStep({ ...base, unattended: true, platform: 'webhook' });
    expect(denied).toMatchObject({ kind: 'deny', reason: 'unattended' });
    expect(denied.kind === 'deny' && denied.message).toContain('approvals.unattended_mode: approve');
    expect(denied.kind === 'deny' && denied.message).toContain('webhook');
    expect(
      dangerousStep({ ...base, unattended: true, settings: { ...SETTINGS, unattendedMode: 'approve' } }),
    ).toMatchObject({ kind: 'allow', reason: 'unattended_approve' });
  });

  it('sends smart mode to the reviewer', () => {
    expect(dangerousStep({ ...base, settings: { ...SETTINGS, mode: 'smart' } })).toEqual({
      kind: 'review',
      findings: [DELETE],
    });
  });
});
