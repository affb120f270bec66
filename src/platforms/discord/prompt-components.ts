import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  ButtonStyle,
  ComponentType,
} from 'discord.js';
import { type ActionChoice, type ActionPrompt, PlatformError } from '../adapter.js';

/** Discord's custom_id limit is 100 characters; counting bytes keeps every id within it. */
export const DISCORD_CUSTOM_ID_BYTES = 100;
const LABEL_CHARS = 80;
const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;
/** One leading emoji (with its variation selector) and a space: shown as the button's emoji. */
const LEADING_EMOJI = /^(\p{Extended_Pictographic}\uFE0F?)\s+(\S[\s\S]*)$/u;

const STYLES: Readonly<
  Record<NonNullable<ActionChoice['style']>, ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Danger>
> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  danger: ButtonStyle.Danger,
};

function clip(text: string, chars: number): string {
  const list = [...text];
  return list.length > chars ? `${list.slice(0, chars - 1).join('')}…` : text;
}

/** One button: its `custom_id` is the choice's data, unchanged, so a click names exactly its prompt. */
export function buttonOf(choice: ActionChoice): APIButtonComponentWithCustomId {
  const bytes = Buffer.byteLength(choice.data, 'utf8');
  if (choice.data === '' || bytes > DISCORD_CUSTOM_ID_BYTES) {
    throw new PlatformError(
      'bad_request',
      `button data must be 1-${DISCORD_CUSTOM_ID_BYTES} bytes (got ${bytes})`,
    );
  }
  const split = LEADING_EMOJI.exec(choice.label.trim());
  const label = clip((split?.[2] ?? choice.label).trim() || '…', LABEL_CHARS);
  return {
    type: ComponentType.Button,
    style: STYLES[choice.style ?? 'secondary'],
    custom_id: choice.data,
    label,
    ...(split?.[1] !== undefined ? { emoji: { name: split[1] } } : {}),
  };
}

/** The prompt's choices as rows of up to five buttons (Discord allows five rows). */
export function componentsOf(prompt: ActionPrompt): APIActionRowComponent<APIButtonComponentWithCustomId>[] {
  if (prompt.choices.length === 0) throw new PlatformError('bad_request', 'a prompt needs choices');
  if (prompt.choices.length > BUTTONS_PER_ROW * MAX_ROWS) {
    throw new PlatformError('bad_request', `a prompt takes at most ${BUTTONS_PER_ROW * MAX_ROWS} choices`);
  }
  const ids = new Set(prompt.choices.map((choice) => choice.data));
  if (ids.size !== prompt.choices.length)
    throw new PlatformError('bad_request', 'button data must be unique in a prompt');
  const rows: APIActionRowComponent<APIButtonComponentWithCustomId>[] = [];
  prompt.choices.forEach((choice, index) => {
    if (index % BUTTONS_PER_ROW === 0) rows.push({ type: ComponentType.ActionRow, components: [] });
    rows.at(-1)?.components.push(buttonOf(choice));
  });
  return rows;
}
