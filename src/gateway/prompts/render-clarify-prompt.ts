import type { ActionPrompt } from '../../platforms/adapter.js';
import { clarifyData } from './action-data.js';

/** The chat prompt for a `clarify` question: up to four choice buttons, or a free answer. */
export function renderClarifyPrompt(
  promptId: string,
  question: { readonly question: string; readonly choices: readonly string[] },
): ActionPrompt {
  const choices = question.choices.slice(0, 4);
  const text = `❓ ${question.question}`;
  const hint =
    choices.length > 0
      ? `Answer with a button, or reply to this message with your own answer.`
      : 'Reply to this message with your answer.';
  const numbered = choices.map((choice, index) => `${index + 1}. ${choice}`);
  return {
    text: `${text}\n\n${hint}`,
    choices: choices.map((label, index) => ({
      data: clarifyData(promptId, index),
      label: label.slice(0, 60),
    })),
    fallbackText: [
      text,
      '',
      ...numbered,
      ...(numbered.length > 0 ? [''] : []),
      'Reply with your answer.',
    ].join('\n'),
  };
}
