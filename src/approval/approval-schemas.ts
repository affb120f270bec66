import { z } from 'zod';

/**
 * zod schemas of the approval records, shared by every store that serialises them (Redis,
 * SQLite) and by the code that reads a request back from a parked turn or a bus event.
 */
export const findingSchema = z.object({
  key: z.string(),
  description: z.string(),
  tier: z.enum(['hardline', 'sudo_guard', 'deny_rule', 'dangerous']),
});

export const approvalRequestSchema = z.object({
  id: z.string(),
  command: z.string(),
  cwd: z.string(),
  findings: z.array(findingSchema),
  sessionKey: z.string(),
  userId: z.string().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  commandHash: z.string(),
  allowPermanent: z.boolean(),
  smartDenied: z.boolean().optional(),
  action: z.enum(['file_write', 'file_read', 'discord_admin', 'mcp_tool']).optional(),
});

export const approvalDecisionSchema = z.object({
  choice: z.enum(['once', 'session', 'always', 'deny']),
  userId: z.string().optional(),
  decidedAt: z.number(),
  cause: z.enum(['user', 'cancelled']),
  reason: z.string().optional(),
});
