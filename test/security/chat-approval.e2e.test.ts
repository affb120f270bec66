import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../src/platforms/test-adapter/test-adapter-types.js';
import { waitFor } from '../gateway/e2e/gateway-kit.js';
import { type SecurityGateway, startSecurityGateway, toolCall } from './security-kit.js';

/**
 * A chat user whose approval prompt is answered from somewhere else: a forged callback sent from
 * another chat or thread (the requester's own id, or an admin's) decides nothing.
 */
describe('approval prompts decided from another chat', () => {
  let gw: SecurityGateway | undefined;
  let adapter: TestAdapter;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('refuses every foreign click; the command runs only when answered where it was asked', async () => {
    adapter = createTestAdapter();
    gw = await startSecurityGateway({
      via: 'in-process',
      adapters: [adapter],
      config: { gateway: { allowed_users: ['test:alice', 'test:mallory'], admin_users: ['test:admin'] } },
    });
    mkdirSync(join(gw.workdir, 'build'));
    const before = gw.snapshot();
    gw.script(
      { content: '', toolCalls: [toolCall('terminal', { command: 'rm -rf build' })] },
      { content: 'Removed.' },
    );
    await adapter.say({ chatId: 'dm-alice', userId: 'alice', text: 'clean the build folder' });
    await waitFor(() => adapter.prompts.length === 1);
    const prompt = adapter.prompts[0]!;
    const allow = prompt.prompt.choices.find((c) => c.label.includes('Allow once'))?.data ?? '';
    const forged = [
      { chatId: 'group-x', chatType: 'group' as const, userId: 'alice' },
      { chatId: 'dm-admin', userId: 'admin' },
      { chatId: 'dm-alice', threadId: 'other-thread', userId: 'alice' },
      { chatId: 'dm-mallory', userId: 'mallory' },
    ];
    for (const from of forged) {
      const answer = await adapter.inject(
        adapter.action({ ...from, messageId: prompt.messageId, data: allow }),
      );
      expect(answer, JSON.stringify(from)).toMatchObject({
        status: 'answered',
        notice: expect.stringMatching(/another chat/i),
      });
    }
    expect(existsSync(join(gw.workdir, 'build'))).toBe(true);
    expect(gw.model.requests).toHaveLength(1);
    gw.expectUnchanged(before);
    await adapter.press({ messageId: prompt.messageId, userId: 'alice', label: '✅ Allow once' });
    await waitFor(() => adapter.texts('dm-alice').includes('Removed.'));
    expect(existsSync(join(gw.workdir, 'build'))).toBe(false);
    gw.expectNoSecrets(gw.logs(), 'the gateway logs');
  });
});
