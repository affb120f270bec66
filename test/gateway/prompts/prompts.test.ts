import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import { approvalData, clarifyData, parseActionData } from '../../../src/gateway/prompts/action-data.js';
import {
  PROMPT_COMMAND_CHARS,
  renderApprovalOutcome,
  renderApprovalPrompt,
} from '../../../src/gateway/prompts/render-approval-prompt.js';
import { renderClarifyPrompt } from '../../../src/gateway/prompts/render-clarify-prompt.js';

const request = (command: string, allowPermanent = true): ApprovalRequest => ({
  id: 'Ab12Cd34Ef56',
  command,
  cwd: '/work',
  findings: [
    { key: 'recursive delete', description: 'recursive delete', tier: 'dangerous' },
    { key: 'recursive delete', description: 'recursive delete', tier: 'dangerous' },
  ],
  sessionKey: 'agent:main:test:dm:1',
  userId: '1',
  createdAt: 0,
  expiresAt: 300_000,
  commandHash: 'h',
  allowPermanent,
});

describe('action data', () => {
  it('round-trips and fits a Telegram callback (64 bytes)', () => {
    for (const choice of ['once', 'session', 'always', 'deny'] as const) {
      const data = approvalData(choice, 'Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56');
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(parseActionData(data)).toStrictEqual({
        kind: 'approval',
        choice,
        requestId: 'Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56',
      });
    }
    expect(parseActionData(clarifyData('prompt_1', 2))).toStrictEqual({
      kind: 'clarify',
      promptId: 'prompt_1',
      choice: 2,
    });
  });

  it.each([
    '',
    'ea:yes:Ab12Cd34',
    'ea:once:',
    'ea:once:../../x',
    'ea:once:Ab12 Cd34',
    'cq:p1234:9',
    'xx:once:Ab12Cd34',
    'ea:once:Ab12Cd34:extra',
  ])('rejects forged data %j', (data) => {
    expect(parseActionData(data)).toBeUndefined();
  });
});

describe('renderApprovalPrompt', () => {
  it('shows the command, why, when it expires, and four choices', () => {
    const prompt = renderApprovalPrompt(request('rm -rf build/'), { now: 0 });
    expect(prompt.text).toContain('rm -rf build/');
    expect(prompt.text).toContain('Why it was flagged: recursive delete');
    expect(prompt.text).not.toContain('recursive delete; recursive delete');
    expect(prompt.text).toContain('Expires in 5 minutes');
    expect(prompt.choices.map((c) => c.data)).toStrictEqual([
      'ea:once:Ab12Cd34Ef56',
      'ea:session:Ab12Cd34Ef56',
      'ea:always:Ab12Cd34Ef56',
      'ea:deny:Ab12Cd34Ef56',
    ]);
    expect(prompt.fallbackText).toContain('/approve session');
    expect(prompt.fallbackText).toContain('/deny');
  });

  it('shortens a long command visibly and then offers only once and deny', () => {
    const long = `echo ${'x'.repeat(PROMPT_COMMAND_CHARS + 500)}`;
    const prompt = renderApprovalPrompt(request(long), { now: 0 });
    expect(prompt.text).toContain('more characters not shown');
    expect(prompt.text.length).toBeLessThan(PROMPT_COMMAND_CHARS + 600);
    expect(prompt.choices.map((c) => c.data.split(':')[1])).toStrictEqual(['once', 'deny']);
    expect(prompt.fallbackText).not.toContain('/approve always');
  });

  it('offers only once and deny when the gate says permanent choices are not allowed', () => {
    const prompt = renderApprovalPrompt(request('rm -rf x', false), { now: 0 });
    expect(prompt.choices).toHaveLength(2);
  });

  it('cannot be broken out of its code block', () => {
    const prompt = renderApprovalPrompt(request('echo ```\nrm -rf x'), { now: 0 });
    expect(prompt.text.match(/```/g)).toHaveLength(2);
  });

  it('presents a file write as a write, with the content and what session approval covers', () => {
    const write: ApprovalRequest = {
      ...request('write_file ~/.bashrc: creates it with 18 bytes (sha256 abc)\nexport EDITOR=vim'),
      action: 'file_write',
      findings: [
        { key: 'file write: ~/.bashrc', description: 'a shell start-up file (~/.bashrc)', tier: 'dangerous' },
      ],
    };
    const prompt = renderApprovalPrompt(write, { now: 0 });
    expect(prompt.text).toContain('wants to write a file');
    expect(prompt.text).not.toContain('run a command');
    expect(prompt.text).toContain('export EDITOR=vim');
    expect(prompt.text).toContain('Why it was flagged: a shell start-up file (~/.bashrc)');
    expect(prompt.text).toContain('this same file again');
    expect(prompt.text).toContain('No answer means nothing is written.');
    expect(prompt.fallbackText).toContain('/approve to make this write');
    const read = renderApprovalPrompt(
      { ...write, command: 'read_file ~/.ssh/id_rsa', action: 'file_read' },
      { now: 0 },
    );
    expect(read.text).toContain('wants to read a file that holds secrets');
    expect(read.text).toContain('NOT read');
  });

  it('describes outcomes without ever looking pending', () => {
    expect(renderApprovalOutcome('once', 'Ada')).toContain('by Ada');
    expect(renderApprovalOutcome('timeout', undefined)).toContain('did NOT run');
    expect(renderApprovalOutcome('deny', 'Bob')).toContain('did not run');
  });
});

describe('renderClarifyPrompt', () => {
  it('offers up to four choices as buttons and numbered lines in the fallback', () => {
    const prompt = renderClarifyPrompt('p_123456', {
      question: 'Which branch?',
      choices: ['main', 'dev', 'a', 'b', 'extra'],
    });
    expect(prompt.choices).toHaveLength(4);
    expect(prompt.choices[1]).toStrictEqual({ data: 'cq:p_123456:1', label: 'dev' });
    expect(prompt.fallbackText).toContain('2. dev');
  });
});
