/**
 * The id a clarify question's prompt is recorded under, derived from its park (one prompt per
 * park): what the chat platforms show, the API server's runs answer and the sweep looks up.
 */
export function clarifyPromptId(parkId: string): string {
  return parkId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
}
