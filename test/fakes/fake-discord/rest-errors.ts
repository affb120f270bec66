/** Discord's JSON errors: `{code, message, errors?}` with the status Discord answers them with. */
import type { z } from 'zod';

/** Discord's nested form errors: field path → `{_errors: [{code, message}]}`. */
export interface ErrorTree {
  [key: string]: ErrorTree | { code: string; message: string }[];
}

export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: ErrorTree,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      code: this.code,
      ...(this.errors !== undefined ? { errors: this.errors } : {}),
    };
  }
}

const make = (status: number, code: number, message: string) => () =>
  new DiscordApiError(status, code, message);

export const apiErrors = {
  unauthorized: make(401, 0, '401: Unauthorized'),
  notFound: make(404, 0, '404: Not Found'),
  methodNotAllowed: make(405, 0, '405: Method Not Allowed'),
  unknownChannel: make(404, 10003, 'Unknown Channel'),
  unknownGuild: make(404, 10004, 'Unknown Guild'),
  unknownMember: make(404, 10007, 'Unknown Member'),
  unknownMessage: make(404, 10008, 'Unknown Message'),
  unknownUser: make(404, 10013, 'Unknown User'),
  unknownEmoji: make(400, 10014, 'Unknown Emoji'),
  unknownWebhook: make(404, 10015, 'Unknown Webhook'),
  unknownInteraction: make(404, 10062, 'Unknown interaction'),
  unknownCommand: make(404, 10063, 'Unknown application command'),
  maxPins: make(400, 30003, 'Maximum number of pins reached (50)'),
  alreadyAcknowledged: make(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: make(403, 50001, 'Missing Access'),
  cannotEditOthers: make(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: make(400, 50006, 'Cannot send an empty message'),
  cannotDmUser: make(403, 50007, 'Cannot send messages to this user'),
  missingPermissions: make(403, 50013, 'Missing Permissions'),
  wrongChannelType: make(400, 50024, 'Cannot execute action on this channel type'),
  invalidJson: make(400, 50109, 'The request body contains invalid JSON.'),
  threadExists: make(400, 160004, 'A thread has already been created for this message'),
};

export function invalidFormBody(errors: ErrorTree): DiscordApiError {
  return new DiscordApiError(400, 50035, 'Invalid Form Body', errors);
}

/** One form error at `path` (what a zod refinement reports through `discordIssue`). */
export function formError(
  path: readonly (string | number)[],
  code: string,
  message: string,
): DiscordApiError {
  const tree: ErrorTree = {};
  addError(tree, path, code, message);
  return invalidFormBody(tree);
}

function addError(tree: ErrorTree, path: readonly PropertyKey[], code: string, message: string): void {
  let node = tree;
  for (const key of path) {
    const name = String(key);
    const next = node[name];
    if (next === undefined || Array.isArray(next)) {
      const child: ErrorTree = {};
      node[name] = child;
      node = child;
    } else {
      node = next;
    }
  }
  const list = node['_errors'];
  const entry = { code, message };
  if (Array.isArray(list)) list.push(entry);
  else node['_errors'] = [entry];
}

/** `error` text for a zod check that carries Discord's error code: `CODE|message`. */
export const discordMessage = (code: string, message: string): string => `${code}|${message}`;

/** Discord's `Invalid Form Body` for the issues of a zod parse. */
export function fromZod(error: z.ZodError): DiscordApiError {
  const tree: ErrorTree = {};
  for (const issue of error.issues) {
    const [code, message] = describe(issue);
    addError(tree, issue.path, code, message);
  }
  return invalidFormBody(tree);
}

function describe(issue: z.core.$ZodIssue): [string, string] {
  const split = issue.message.indexOf('|');
  if (split > 0 && /^[A-Z_0-9]+$/.test(issue.message.slice(0, split))) {
    return [issue.message.slice(0, split), issue.message.slice(split + 1)];
  }
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? ['BASE_TYPE_REQUIRED', 'This field is required']
        : issue.expected === 'number' || issue.expected === 'int'
          ? ['NUMBER_TYPE_COERCE', `Value "${String(issue.input)}" is not int.`]
          : issue.expected === 'string'
            ? ['BASE_TYPE_STRING', 'Could not interpret value as string.']
            : ['BASE_TYPE_INVALID', `Expected ${issue.expected}.`];
    case 'too_big':
      return issue.origin === 'string'
        ? ['BASE_TYPE_MAX_LENGTH', `Must be ${String(issue.maximum)} or fewer in length.`]
        : issue.origin === 'array'
          ? ['BASE_TYPE_BAD_LENGTH', `Must be between 0 and ${String(issue.maximum)} in length.`]
          : ['NUMBER_TYPE_MAX', `int value should be less than or equal to ${String(issue.maximum)}.`];
    case 'too_small':
      return issue.origin === 'string'
        ? ['BASE_TYPE_MIN_LENGTH', `Must be ${String(issue.minimum)} or more in length.`]
        : issue.origin === 'array'
          ? ['BASE_TYPE_BAD_LENGTH', `Must be at least ${String(issue.minimum)} in length.`]
          : ['NUMBER_TYPE_MIN', `int value should be greater than or equal to ${String(issue.minimum)}.`];
    case 'invalid_value':
      return ['BASE_TYPE_CHOICES', `Value must be one of ${issue.values.map(String).join(', ')}.`];
    case 'invalid_union':
      return ['UNION_TYPE_CHOICES', 'Value of field "type" must be one of the known component types.'];
    default:
      return ['BASE_TYPE_INVALID', issue.message];
  }
}
