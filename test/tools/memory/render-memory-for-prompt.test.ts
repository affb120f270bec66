import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/tools/memory/memory-store.js';
import { renderMemoryForPrompt } from '../../../src/tools/memory/render-memory-for-prompt.js';
import { makeTempHome } from '../../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
let store: MemoryStore;
beforeEach(() => {
  temp = makeTempHome('hermes-memprompt-');
  store = new MemoryStore({ root: join(temp.home, 'memories') });
});
afterEach(() => temp.cleanup());

describe('renderMemoryForPrompt', () => {
  it('is empty when nothing is saved', async () => {
    expect(await renderMemoryForPrompt(store, 'telegram.1')).toBe('');
  });

  it('renders notes then the profile, each with its usage', async () => {
    await store.add('telegram.1', 'user', 'Name: Ada.');
    await store.add('telegram.1', 'memory', 'Repo uses pnpm.');
    await store.add('telegram.1', 'memory', 'CI is GitHub Actions.');
    const text = await renderMemoryForPrompt(store, 'telegram.1');
    expect(text).toBe(
      [
        '## MEMORY: your own notes from earlier sessions [39/2,200 chars (2%)]',
        'Repo uses pnpm.',
        '§',
        'CI is GitHub Actions.',
        '',
        '## USER PROFILE: what you know about this user [10/1,375 chars (1%)]',
        'Name: Ada.',
      ].join('\n'),
    );
  });

  it('renders only the parts that have entries, and only for its scope', async () => {
    await store.add('telegram.1', 'user', 'Name: Ada.');
    await store.add('telegram.2', 'memory', 'Someone else.');
    const text = await renderMemoryForPrompt(store, 'telegram.1');
    expect(text).toMatch(/^## USER PROFILE/);
    expect(text).not.toContain('Someone else');
  });
});
