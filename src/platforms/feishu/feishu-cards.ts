import { type ActionPrompt, PlatformError } from '../adapter.js';
import { BUTTON_VALUE_KEY } from './translate-event.js';

/**
 * Interactive cards (card JSON 1.0, `update_multi` so they can be updated for everyone): a
 * markdown answer, a prompt with buttons, and the card a prompt becomes once answered.
 */

/** Largest `ActionChoice.data` we put in a button value, bytes. */
export const FEISHU_ACTION_DATA_BYTES = 256;
const MAX_BUTTONS = 10;
const HEADER_CHARS = 100;

export type Card = Readonly<Record<string, unknown>>;

const CONFIG = { wide_screen_mode: true, update_multi: true } as const;

/** A card showing `text` as markdown, nothing else. */
export function markdownCard(text: string): Card {
  return { config: CONFIG, elements: [{ tag: 'markdown', content: text }] };
}

const BUTTON_TYPES = { primary: 'primary', secondary: 'default', danger: 'danger' } as const;

/**
 * A prompt as a card: its first line (a short one, when more follow) becomes the header — orange
 * when a choice is dangerous, blue otherwise — the rest a markdown block, then one button per
 * choice whose value carries the choice's data.
 */
export function promptCard(prompt: ActionPrompt): Card {
  if (prompt.choices.length === 0) throw new PlatformError('bad_request', 'a prompt needs choices');
  if (prompt.choices.length > MAX_BUTTONS) {
    throw new PlatformError('bad_request', `a prompt takes at most ${MAX_BUTTONS} choices`);
  }
  const seen = new Set<string>();
  for (const choice of prompt.choices) {
    const bytes = Buffer.byteLength(choice.data, 'utf8');
    if (choice.data === '' || bytes > FEISHU_ACTION_DATA_BYTES) {
      throw new PlatformError(
        'bad_request',
        `button data must be 1-${FEISHU_ACTION_DATA_BYTES} bytes (got ${bytes})`,
      );
    }
    if (seen.has(choice.data))
      throw new PlatformError('bad_request', 'button data must be unique in a prompt');
    seen.add(choice.data);
  }
  const [first = '', ...rest] = prompt.text.split('\n');
  const titled = rest.join('\n').trim() !== '' && [...first].length <= HEADER_CHARS && first.trim() !== '';
  const body = titled ? rest.join('\n').trim() : prompt.text;
  const danger = prompt.choices.some((choice) => choice.style === 'danger');
  return {
    config: CONFIG,
    ...(titled
      ? {
          header: {
            title: { tag: 'plain_text', content: first.trim() },
            template: danger ? 'orange' : 'blue',
          },
        }
      : {}),
    elements: [
      { tag: 'markdown', content: body },
      {
        tag: 'action',
        actions: prompt.choices.map((choice) => ({
          tag: 'button',
          text: { tag: 'plain_text', content: choice.label },
          type: BUTTON_TYPES[choice.style ?? 'secondary'],
          value: { [BUTTON_VALUE_KEY]: choice.data },
        })),
      },
    ],
  };
}
