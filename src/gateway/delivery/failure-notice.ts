/**
 * What a chat is told, before its next message from us, about answers that did not reach it
 * (or not in full: a part that failed after a platform timeout may have arrived after all).
 */
export function failureNotice(count: number): string {
  const what = count === 1 ? 'An earlier answer' : `${count} earlier answers`;
  return `⚠️ ${what} could not be delivered in full. If you still need it, please ask again.`;
}
