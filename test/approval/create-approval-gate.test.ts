import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ApprovalStore } from '../../src/approval/approval-store.js';
import type {
  ApprovalRequest,
  Finding,
  GateAction,
  GateContext,
  GateDecision,
} from '../../src/approval/approval-types.js';
import { commandHash } from '../../src/approval/command-hash.js';
import { type ApprovalGateController, createApprovalGate } from '../../src/approval/create-approval-gate.js';
import { detect } from '../../src/approval/detect.js';
import { createMemoryApprovalStore } from '../../src/approval/memory-approval-store.js';
import { createSmartReviewer } from '../../src/approval/smart-reviewer.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/fake-openai.js';
import { makeTempHome, silentLogger, testConfig } from '../helpers/test-config.js';
import { type TestClock, testClock } from './approval-store-conformance.js';

const DANGEROUS = 'rm -rf build';
const HARDLINE = 'rm -rf /';

function ctx(overrides: Partial<GateContext> = {}): GateContext {
  return {
    sessionKey: 'agent:main:telegram:dm:42',
    userId: '42',
    cwd: '/work/repo',
    platform: 'telegram',
    unattended: false,
    backend: 'local',
    ...overrides,
  };
}

function asked(decision: GateDecision): ApprovalRequest {
  if (decision.kind !== 'ask') throw new Error(`expected ask, got ${JSON.stringify(decision)}`);
  return decision.request;
}

function keysOf(command: string): string[] {
  return detect(command).findings.map((finding) => finding.key);
}

describe('approval gate', () => {
  let home: string;
  let cleanup: () => void;
  let clock: TestClock;
  let store: ApprovalStore;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    ({ home, cleanup } = makeTempHome());
    clock = testClock();
    store = createMemoryApprovalStore({ now: clock.now });
    fake.reset();
    fake.respond = () => ({ content: 'ESCALATE' });
  });
  afterEach(() => cleanup());

  function gate(yaml = '', env: Record<string, string> = {}, smart = false): ApprovalGateController {
    if (yaml !== '') writeFileSync(join(home, 'config.yaml'), yaml);
    const config = testConfig(home, env);
    const smartReviewer = smart
      ? createSmartReviewer({
          client: new OpenAI({ baseURL: fake.baseURL, apiKey: 'k', maxRetries: 0 }),
          model: 'aux',
          logger: silentLogger,
          timeoutMs: 2000,
        })
      : undefined;
    return createApprovalGate({
      config,
      store,
      logger: silentLogger,
      now: clock.now,
      ...(smartReviewer === undefined ? {} : { smartReviewer }),
    });
  }

  describe('floors', () => {
    it('blocks hardline commands in yolo, in mode off, in docker and in yolo sessions', async () => {
      const yolo = gate('approvals:\n  mode: "off"\n', { HERMES_YOLO_MODE: '1' });
      await yolo.setSessionYolo(ctx().sessionKey, true);
      for (const backend of ['local', 'docker', 'ssh'] as const) {
        const decision = await yolo.check(HARDLINE, ctx({ backend }));
        expect(decision).toMatchObject({ kind: 'deny', reason: 'hardline' });
        if (decision.kind === 'deny') expect(decision.message).toMatch(/outside the agent/);
      }
    });

    it('blocks deny-rule matches in yolo and in docker', async () => {
      const g = gate('approvals:\n  deny: ["git push --force*"]\n', { HERMES_YOLO_MODE: 'true' });
      for (const backend of ['local', 'docker'] as const) {
        const decision = await g.check('cd repo && GIT PUSH --force origin main', ctx({ backend }));
        expect(decision).toMatchObject({ kind: 'deny', reason: 'deny_rule' });
        if (decision.kind === 'deny') expect(decision.message).toContain("'git push --force*'");
      }
    });

    it('matches deny rules against the simple commands detection sees through obfuscation', async () => {
      const g = gate('approvals:\n  deny: ["rm -rf *"]\n');
      for (const command of ['cd x && r\\m -rf build', 'bash -c "rm -rf build"', 'sudo rm -rf build']) {
        expect(await g.check(command, ctx()), command).toMatchObject({ kind: 'deny', reason: 'deny_rule' });
      }
    });

    it('refuses sudo -S unless terminal.sudo_password is configured', async () => {
      const decision = await gate('', { HERMES_YOLO_MODE: '1' }).check('echo pw | sudo -S ls /root', ctx());
      expect(decision).toMatchObject({ kind: 'deny', reason: 'sudo_guard' });
      const withPassword = gate('', { SUDO_PASSWORD: 'secret-pw', HERMES_YOLO_MODE: '1' });
      expect((await withPassword.check('sudo -S ls /root', ctx())).kind).toBe('allow');
    });

    it('lets safe commands through and skips the dangerous tier only on docker', async () => {
      const g = gate();
      expect(await g.check('ls -la', ctx())).toEqual({ kind: 'allow', reason: 'safe', findings: [] });
      expect(await g.check(DANGEROUS, ctx({ backend: 'docker' }))).toMatchObject({
        kind: 'allow',
        reason: 'container',
      });
      expect((await g.check(DANGEROUS, ctx({ backend: 'ssh' }))).kind).toBe('ask');
    });
  });

  describe('asking', () => {
    it('creates a request bound to the command, cwd, user and timeout', async () => {
      const g = gate('approvals:\n  timeout: 60\n');
      const request = asked(await g.check(DANGEROUS, ctx()));
      expect(request.id).toMatch(/^[A-Za-z0-9]{1,16}$/);
      expect(Buffer.byteLength(`ea:session:${request.id}`)).toBeLessThanOrEqual(64);
      expect(request.commandHash).toBe(createHash('sha256').update(`${DANGEROUS}\0/work/repo`).digest('hex'));
      expect(request).toMatchObject({
        command: DANGEROUS,
        cwd: '/work/repo',
        sessionKey: ctx().sessionKey,
        userId: '42',
        createdAt: clock.now(),
        expiresAt: clock.now() + 60_000,
        allowPermanent: true,
      });
      expect(request.findings.length).toBeGreaterThan(0);
      expect(await g.listPending(ctx().sessionKey)).toEqual([request]);
    });

    it('offers only once for a command longer than the prompt preview', async () => {
      const long = `${DANGEROUS} ${'x'.repeat(3100)}`;
      const request = asked(await gate().check(long, ctx()));
      expect(request.allowPermanent).toBe(false);
    });

    it('uses the injected id generator', async () => {
      writeFileSync(join(home, 'config.yaml'), '');
      const g = createApprovalGate({
        config: testConfig(home),
        store,
        logger: silentLogger,
        now: clock.now,
        idGenerator: () => 'Abc123',
      });
      expect(asked(await g.check(DANGEROUS, ctx())).id).toBe('Abc123');
    });
  });

  describe('decisions', () => {
    it('once allows that request a single time', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      expect(await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd })).toMatchObject({
        kind: 'pending',
      });
      expect((await g.decide(request.id, 'once', { userId: '42' })).status).toBe('recorded');
      expect(await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd })).toMatchObject({
        kind: 'allow',
        reason: 'decided',
      });
      expect(await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd })).toMatchObject({
        kind: 'reask',
      });
      // The next identical command asks again.
      expect((await g.check(DANGEROUS, ctx())).kind).toBe('ask');
    });

    it('session approves the findings for this session only', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      await g.decide(request.id, 'session', { userId: '42' });
      expect(await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd })).toMatchObject({
        kind: 'allow',
      });
      expect(await g.check('rm -rf dist', ctx())).toMatchObject({
        kind: 'allow',
        reason: 'session_approved',
      });
      expect((await g.check('rm -rf dist', ctx({ sessionKey: 'another' }))).kind).toBe('ask');
    });

    it('always writes the keys to config.yaml, keeping what is there', async () => {
      const g = gate('# mine\ncommand_allowlist:\n  - podman * # containers\n');
      const request = asked(await g.check(DANGEROUS, ctx()));
      const report = await g.decide(request.id, 'always', { userId: '42' });
      expect(report).toMatchObject({ status: 'recorded', persisted: { persisted: true } });
      const text = readFileSync(join(home, 'config.yaml'), 'utf8');
      expect(text).toContain('# mine');
      expect(text).toContain('# containers');
      expect(parse(text)).toEqual({ command_allowlist: ['podman *', ...keysOf(DANGEROUS)] });
      expect(await g.check('rm -rf dist', ctx({ sessionKey: 'new' }))).toMatchObject({
        kind: 'allow',
        reason: 'allowlist',
      });
    });

    it('applies command_allowlist keys, exact commands and globs (not to compound commands)', async () => {
      const keys = keysOf('chmod 777 file.txt');
      const yaml = `command_allowlist:\n${[...keys, 'git push --force origin main', 'rm -rf ./tmp*']
        .map((entry) => `  - ${JSON.stringify(entry)}`)
        .join('\n')}\n`;
      const g = gate(yaml);
      expect(await g.check('chmod 777 other.txt', ctx())).toMatchObject({
        kind: 'allow',
        reason: 'allowlist',
      });
      expect(await g.check('git push --force origin main', ctx())).toMatchObject({ reason: 'allowlist' });
      expect(await g.check('rm -rf ./tmp-cache', ctx())).toMatchObject({ reason: 'allowlist' });
      expect((await g.check('rm -rf ./tmp-cache; rm -rf ./src', ctx())).kind).toBe('ask');
    });

    it('first decision wins, also when decisions race', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      const reports = await Promise.all(
        (['deny', 'once', 'session', 'always'] as const).map((choice) =>
          g.decide(request.id, choice, { userId: '42' }),
        ),
      );
      expect(reports.filter((report) => report.status === 'recorded')).toHaveLength(1);
      expect(reports.filter((report) => report.status === 'already_decided')).toHaveLength(3);
    });

    it('refuses a decision for another command hash, another user, or a permanent scope when only once is offered', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      expect(await g.decide(request.id, 'once', { userId: '42', commandHash: 'f'.repeat(64) })).toEqual({
        status: 'hash_mismatch',
      });
      expect(await g.decide(request.id, 'once', { userId: '7' })).toEqual({ status: 'forbidden' });
      expect((await g.decide(request.id, 'once', { userId: '7', admin: true })).status).toBe('recorded');
      expect(await g.decide('Unknown1', 'once', { userId: '42' })).toEqual({ status: 'not_found' });
    });

    it('a decision after expiry changes nothing, and the model is told silence is not consent', async () => {
      const g = gate('approvals:\n  timeout: 30\n');
      const request = asked(await g.check(DANGEROUS, ctx()));
      clock.advance(30_000);
      expect((await g.decide(request.id, 'once', { userId: '42' })).status).toBe('expired');
      const resumed = await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd });
      expect(resumed).toMatchObject({ kind: 'deny', reason: 'timeout' });
      if (resumed.kind === 'deny') {
        expect(resumed.message).toMatch(/Silence is not consent/);
        expect(resumed.message).toMatch(/do not rephrase it/);
      }
    });

    it('relays a denial and its reason', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      await g.decide(request.id, 'deny', { userId: '42', reason: 'wrong folder' });
      const resumed = await g.resume(request.id, { command: DANGEROUS, cwd: ctx().cwd });
      expect(resumed).toMatchObject({ kind: 'deny', reason: 'denied' });
      if (resumed.kind === 'deny') {
        expect(resumed.message).toContain('DENIED by the user');
        expect(resumed.message).toContain('wrong folder');
        expect(resumed.message).toMatch(/do not rephrase it/);
      }
    });

    it('never lets an approval cover a different command', async () => {
      const g = gate();
      const request = asked(await g.check(DANGEROUS, ctx()));
      await g.decide(request.id, 'once', { userId: '42' });
      await expect(g.resume(request.id, { command: 'rm -rf /srv', cwd: ctx().cwd })).rejects.toMatchObject({
        code: 'approval_mismatch',
      });
      await expect(g.resume(request.id, { command: DANGEROUS, cwd: '/elsewhere' })).rejects.toMatchObject({
        code: 'approval_mismatch',
      });
    });

    it('coalesces identical concurrent requests; once covers only the first caller', async () => {
      const g = gate();
      const [first, second] = await Promise.all([g.check(DANGEROUS, ctx()), g.check(DANGEROUS, ctx())]);
      expect(first).toMatchObject({ kind: 'ask', coalesced: false });
      expect(second).toMatchObject({ kind: 'ask', coalesced: true });
      const id = asked(first).id;
      expect(asked(second).id).toBe(id);
      expect(await g.listPending(ctx().sessionKey)).toHaveLength(1);
      await g.decide(id, 'once', { userId: '42' });
      const options = { command: DANGEROUS, cwd: ctx().cwd };
      expect((await g.resume(id, { ...options, coalesced: false })).kind).toBe('allow');
      expect((await g.resume(id, { ...options, coalesced: true })).kind).toBe('reask');
      // The follower asks again and gets a prompt of its own.
      const again = asked(await g.check(DANGEROUS, ctx()));
      expect(again.id).not.toBe(id);
    });

    it('a coalesced follower adopts a session approval', async () => {
      const g = gate();
      const [first, second] = await Promise.all([g.check(DANGEROUS, ctx()), g.check(DANGEROUS, ctx())]);
      await g.decide(asked(first).id, 'session', { userId: '42' });
      const resumed = await g.resume(asked(second).id, {
        command: DANGEROUS,
        cwd: ctx().cwd,
        coalesced: true,
      });
      expect(resumed.kind).toBe('allow');
    });

    it('cancel and clearSession deny pending requests as cancelled', async () => {
      const g = gate();
      const a = asked(await g.check(DANGEROUS, ctx()));
      expect((await g.cancel(a.id, 'stopped')).status).toBe('recorded');
      expect(await g.resume(a.id, { command: DANGEROUS, cwd: ctx().cwd })).toMatchObject({
        kind: 'deny',
        reason: 'cancelled',
      });

      const b = asked(await g.check('rm -rf dist', ctx()));
      const grant = asked(await g.check('chmod 777 x', ctx()));
      await g.decide(grant.id, 'session', { userId: '42' });
      await g.setSessionYolo(ctx().sessionKey, true);
      expect(await g.clearSession(ctx().sessionKey)).toBe(1);
      expect(await g.outcome(b.id)).toMatchObject({ state: 'denied', cause: 'cancelled' });
      expect(await g.isSessionYolo(ctx().sessionKey)).toBe(false);
      expect((await g.check('chmod 777 x', ctx())).kind).toBe('ask');
    });

    it('session yolo allows dangerous commands in that session only', async () => {
      const g = gate();
      await g.setSessionYolo(ctx().sessionKey, true);
      expect(await g.check(DANGEROUS, ctx())).toMatchObject({ kind: 'allow', reason: 'yolo' });
      expect((await g.check(DANGEROUS, ctx({ sessionKey: 'other' }))).kind).toBe('ask');
      expect(await g.check(HARDLINE, ctx())).toMatchObject({ kind: 'deny', reason: 'hardline' });
    });
  });

  describe('modes', () => {
    it('mode off and process yolo allow dangerous commands', async () => {
      expect(await gate('approvals:\n  mode: "off"\n').check(DANGEROUS, ctx())).toMatchObject({
        reason: 'mode_off',
      });
      cleanup();
      ({ home, cleanup } = makeTempHome());
      expect(await gate('', { HERMES_YOLO_MODE: '1' }).check(DANGEROUS, ctx())).toMatchObject({
        reason: 'yolo',
      });
    });

    it('unattended sessions are refused at once unless unattended_mode is approve', async () => {
      const decision = await gate().check(DANGEROUS, ctx({ unattended: true, platform: 'webhook' }));
      expect(decision).toMatchObject({ kind: 'deny', reason: 'unattended' });
      if (decision.kind === 'deny') {
        expect(decision.message).toMatch(/another way/);
        expect(decision.message).toContain('approvals.unattended_mode: approve');
      }
      expect(await store.listPending(ctx().sessionKey)).toEqual([]);
      cleanup();
      ({ home, cleanup } = makeTempHome());
      const approving = gate('approvals:\n  unattended_mode: approve\n');
      expect(await approving.check(DANGEROUS, ctx({ unattended: true }))).toMatchObject({
        kind: 'allow',
        reason: 'unattended_approve',
      });
      expect(await approving.check(HARDLINE, ctx({ unattended: true }))).toMatchObject({
        reason: 'hardline',
      });
    });

    describe('smart', () => {
      const SMART = 'approvals:\n  mode: smart\n';

      it('APPROVE allows that one command only', async () => {
        const g = gate(SMART, {}, true);
        fake.script({ content: 'APPROVE' });
        expect(await g.check(DANGEROUS, ctx())).toMatchObject({ kind: 'allow', reason: 'smart_approved' });
        fake.script({ content: 'ESCALATE' });
        expect((await g.check(DANGEROUS, ctx())).kind).toBe('ask');
        expect(fake.requests).toHaveLength(2);
      });

      it('DENY refuses, and after 3 in a row tells the model to stop', async () => {
        const g = gate(SMART, {}, true);
        const messages: string[] = [];
        for (const command of ['rm -rf a', 'rm -rf b', 'rm -rf c']) {
          fake.script({ content: 'DENY' });
          const decision = await g.check(command, ctx());
          expect(decision).toMatchObject({ kind: 'deny', reason: 'smart_denied' });
          if (decision.kind === 'deny') messages.push(decision.message);
        }
        expect(messages[0]).not.toMatch(/STOP/);
        expect(messages[1]).not.toMatch(/STOP/);
        expect(messages[2]).toMatch(/STOP: 3 commands in a row/);
        // Another session has its own tally; an approval resets this one.
        fake.script({ content: 'DENY' });
        const other = await g.check('rm -rf d', ctx({ sessionKey: 'other' }));
        expect(other.kind === 'deny' && other.message).not.toMatch(/STOP/);
        fake.script({ content: 'APPROVE' }, { content: 'DENY' });
        await g.check('rm -rf e', ctx());
        const after = await g.check('rm -rf f', ctx());
        expect(after.kind === 'deny' && after.message).not.toMatch(/STOP/);
      });

      it.each([
        ['ESCALATE', { content: 'ESCALATE' }],
        ['garbage', { content: 'Sure, go ahead' }],
        ['an error', { status: 503, error: 'overloaded' }],
      ] as const)('%s asks a human', async (_label, reply) => {
        const g = gate(SMART, {}, true);
        fake.script(reply);
        expect((await g.check(DANGEROUS, ctx())).kind).toBe('ask');
      });

      it('an oversized command asks a human without calling the model', async () => {
        const g = gate(SMART, {}, true);
        expect((await g.check(`${DANGEROUS} ${'y'.repeat(40_000)}`, ctx())).kind).toBe('ask');
        expect(fake.requests).toHaveLength(0);
      });

      it('without a reviewer, smart mode asks a human', async () => {
        expect((await gate(SMART).check(DANGEROUS, ctx())).kind).toBe('ask');
      });

      it('an owner override of a smart denial offers once only', async () => {
        const g = gate(SMART, {}, true);
        const request = asked(await g.requestOverride(DANGEROUS, ctx()));
        expect(request).toMatchObject({ allowPermanent: false, smartDenied: true });
        expect(await g.decide(request.id, 'session', { userId: '42' })).toEqual({ status: 'scope_refused' });
        expect((await g.decide(request.id, 'once', { userId: '42' })).status).toBe('recorded');
        expect(await g.requestOverride(HARDLINE, ctx())).toMatchObject({ kind: 'deny', reason: 'hardline' });
        expect(fake.requests).toHaveLength(0);
      });
    });
  });

  describe('checkAction (file tools)', () => {
    const finding = (path: string): Finding => ({
      key: `file write: ${path}`,
      description: `a shell start-up file (${path})`,
      tier: 'dangerous',
    });
    const write = (path = '~/.zshenv', content = 'export A=1', findings?: Finding[]): GateAction => ({
      kind: 'file_write',
      subject: `write_file ${path}`,
      denyTargets: [`write_file /home/ann/${path.slice(2)}`],
      summary: `write_file ${path}: creates it (sha256 ${createHash('sha256').update(content).digest('hex')})\n${content}`,
      findings: findings ?? [finding(path)],
    });

    it('asks a human with a request that is marked as a file write and bound to the summary', async () => {
      const g = gate();
      const action = write();
      const request = asked(await g.checkAction(action, ctx()));
      expect(request).toMatchObject({
        action: 'file_write',
        command: action.summary,
        commandHash: commandHash(action.summary, ctx().cwd),
        findings: action.findings,
        allowPermanent: true,
      });
      // The same write again joins the pending request; other content is another request.
      const again = await g.checkAction(write(), ctx());
      expect(again).toMatchObject({ kind: 'ask', coalesced: true, request: { id: request.id } });
      expect(asked(await g.checkAction(write('~/.zshenv', 'other'), ctx())).id).not.toBe(request.id);
    });

    it('keeps the floors: hardline findings and deny rules refuse, in yolo and mode off', async () => {
      const g = gate('approvals:\n  mode: "off"\n  deny: ["write_file ~/.ssh/*"]\n', {
        HERMES_YOLO_MODE: '1',
      });
      const hardline: Finding = {
        key: 'file write: $HERMES_HOME',
        description: 'HERMES_HOME',
        tier: 'hardline',
      };
      const refused = await g.checkAction(write('~/.hermes-gateway/plugins/x.mjs', 'x', [hardline]), ctx());
      expect(refused).toMatchObject({ kind: 'deny', reason: 'hardline' });
      if (refused.kind === 'deny') expect(refused.message).toContain('This file write is on the fixed list');
      const denied = await g.checkAction(write('~/.ssh/authorized_keys', 'k', []), ctx());
      expect(denied).toMatchObject({ kind: 'deny', reason: 'deny_rule' });
      // Deny rules also see the other spellings of the target.
      const ruled = gate('approvals:\n  deny: ["write_file /home/ann/.bashrc"]\n');
      expect(await ruled.checkAction(write('~/.bashrc', 'x', []), ctx())).toMatchObject({
        reason: 'deny_rule',
      });
    });

    it('allows a write without findings, and one the yolo switches or mode off allow', async () => {
      expect(await gate().checkAction(write('~/notes.md', 'x', []), ctx())).toMatchObject({
        kind: 'allow',
        reason: 'safe',
      });
      expect(await gate('', { HERMES_YOLO_MODE: 'true' }).checkAction(write(), ctx())).toMatchObject({
        kind: 'allow',
        reason: 'yolo',
      });
      expect(await gate('approvals:\n  mode: "off"\n').checkAction(write(), ctx())).toMatchObject({
        kind: 'allow',
        reason: 'mode_off',
      });
      const g = gate();
      await g.setSessionYolo(ctx().sessionKey, true);
      expect((await g.checkAction(write(), ctx())).kind).toBe('allow');
    });

    it('refuses unattended, and never lets a docker backend or the smart reviewer wave a write through', async () => {
      const denied = await gate().checkAction(write(), ctx({ unattended: true, platform: 'webhook' }));
      expect(denied).toMatchObject({ kind: 'deny', reason: 'unattended' });
      if (denied.kind === 'deny') expect(denied.message).toContain('this file write was flagged');
      expect((await gate().checkAction(write(), ctx({ backend: 'docker' }))).kind).toBe('ask');
      fake.respond = () => ({ content: 'APPROVE' });
      const smart = gate('approvals:\n  mode: smart\n', {}, true);
      expect((await smart.checkAction(write(), ctx())).kind).toBe('ask');
      expect(fake.requests).toHaveLength(0);
    });

    it('a session approval covers the same file only; command globs in the allowlist never match', async () => {
      const g = gate('command_allowlist: ["write_file *", "*"]\n');
      const request = asked(await g.checkAction(write(), ctx()));
      await g.decide(request.id, 'session', { userId: '42' });
      expect(await g.checkAction(write('~/.zshenv', 'changed'), ctx())).toMatchObject({
        kind: 'allow',
        reason: 'session_approved',
      });
      expect((await g.checkAction(write('~/.bashrc'), ctx())).kind).toBe('ask');
    });

    it('always saves the file key, which then allows that file and no other', async () => {
      const g = gate('model:\n  name: x\n');
      const request = asked(await g.checkAction(write(), ctx()));
      await g.decide(request.id, 'always', { userId: '42' });
      const saved = parse(readFileSync(join(home, 'config.yaml'), 'utf8')) as { command_allowlist: string[] };
      expect(saved.command_allowlist).toEqual(['file write: ~/.zshenv']);
      expect((await g.checkAction(write(), ctx({ sessionKey: 'other' }))).kind).toBe('allow');
      expect((await g.checkAction(write('~/.profile'), ctx({ sessionKey: 'other' }))).kind).toBe('ask');
    });

    it('tells the model a denied or expired write was not carried out', async () => {
      const g = gate();
      const action = write();
      const request = asked(await g.checkAction(action, ctx()));
      await g.decide(request.id, 'deny', { userId: '42', reason: 'no' });
      const resumed = await g.resume(request.id, { command: action.summary, cwd: ctx().cwd });
      expect(resumed).toMatchObject({ kind: 'deny', reason: 'denied' });
      if (resumed.kind === 'deny') expect(resumed.message).toContain('the file write (');
      await expect(
        g.resume(request.id, { command: write('~/.zshenv', 'x2').summary, cwd: ctx().cwd }),
      ).rejects.toThrow('different command');
    });
  });
});
