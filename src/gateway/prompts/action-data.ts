/**
 * The `data` of prompt buttons. Short (Telegram allows 64 bytes) and strictly parsed: anything
 * that does not match is a forged or stale click and changes nothing.
 */
export type ApprovalChoiceName = 'once' | 'session' | 'always' | 'deny';

export type ParsedAction =
  | { readonly kind: 'approval'; readonly choice: ApprovalChoiceName; readonly requestId: string }
  | { readonly kind: 'clarify'; readonly promptId: string; readonly choice: number };

const APPROVAL = /^ea:(once|session|always|deny):([A-Za-z0-9]{4,32})$/;
const CLARIFY = /^cq:([A-Za-z0-9_-]{4,40}):([0-3])$/;

export function approvalData(choice: ApprovalChoiceName, requestId: string): string {
  return `ea:${choice}:${requestId}`;
}

export function clarifyData(promptId: string, choice: number): string {
  return `cq:${promptId}:${choice}`;
}

export function parseActionData(data: string): ParsedAction | undefined {
  const approval = APPROVAL.exec(data);
  if (approval !== null) {
    return { kind: 'approval', choice: approval[1] as ApprovalChoiceName, requestId: approval[2] as string };
  }
  const clarify = CLARIFY.exec(data);
  if (clarify !== null)
    return { kind: 'clarify', promptId: clarify[1] as string, choice: Number(clarify[2]) };
  return undefined;
}
