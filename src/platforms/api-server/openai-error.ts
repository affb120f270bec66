/** An error body in the OpenAI API's shape, so SDK clients surface the message as is. */
export function openAiError(
  message: string,
  type: string,
  code?: string,
): { error: Record<string, string | null> } {
  return { error: { message, type, param: null, code: code ?? type } };
}
